package engine

import (
	"sort"
	"strconv"
	"strings"

	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/sig"
)

// placeholder reports whether v is a value shown as a placeholder: a secret
// (in any of its serialized forms), an unknown, an asset or an archive.
func placeholder(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		if sig.IsUnknown(t) {
			return pulumirun.UnknownPlaceholder, true
		}
	case map[string]any:
		switch t[sig.Key] {
		case sig.Secret:
			return pulumirun.SecretPlaceholder, true
		case sig.AssetSig:
			return "[asset]", true
		case sig.ArchiveSig:
			return "[archive]", true
		case sig.ResourceReference:
			urn, _ := t["urn"].(string)
			return "[resource " + urn + "]", true
		}
	}
	return "", false
}

// lookup finds the value at path in props. A secret or unknown met on the
// way is returned as is, so that rendering shows its placeholder.
func lookup(props map[string]any, path resource.PropertyPath) (any, bool) {
	var cur any = props
	for _, el := range path {
		if _, ok := placeholder(cur); ok {
			return cur, true
		}
		switch k := el.(type) {
		case string:
			m, ok := cur.(map[string]any)
			if !ok {
				return nil, false
			}
			if cur, ok = m[k]; !ok {
				return nil, false
			}
		case int:
			a, ok := cur.([]any)
			if !ok || k < 0 || k >= len(a) {
				return nil, false
			}
			cur = a[k]
		default:
			return nil, false
		}
	}
	return cur, true
}

// render prints a property value compactly: strings quoted, objects with
// sorted keys, placeholders unquoted.
func render(v any) string {
	var b strings.Builder
	write(&b, v)
	return b.String()
}

func write(b *strings.Builder, v any) {
	if p, ok := placeholder(v); ok {
		b.WriteString(p)
		return
	}
	switch t := v.(type) {
	case nil:
		b.WriteString("null")
	case string:
		b.WriteString(strconv.Quote(t))
	case bool:
		b.WriteString(strconv.FormatBool(t))
	case float64:
		b.WriteString(strconv.FormatFloat(t, 'g', -1, 64))
	case []any:
		b.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				b.WriteString(", ")
			}
			write(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Quote(k))
			b.WriteString(": ")
			write(b, t[k])
		}
		b.WriteByte('}')
	default:
		b.WriteString(strconv.Quote("?"))
	}
}
