package diff

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	yamlv2 "go.yaml.in/yaml/v2"
)

// Fields of metadata that the API server owns; they differ between any live
// object and its manifest without saying anything about drift.
var serverMetadata = map[string]bool{
	"managedFields":     true,
	"resourceVersion":   true,
	"uid":               true,
	"generation":        true,
	"creationTimestamp": true,
	"selfLink":          true,
}

// lastApplied holds the whole previous manifest, Secret values included.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// Pulumi writes a secret value as an object carrying this key and value.
const (
	pulumiSecretSigKey = "4dabf18193072939515e22adb298388d"
	pulumiSecretSig    = "1b47061264138c4ac30d75fd1eb44270"
	secretPlaceholder  = "[secret]"
)

// normalize returns a copy of obj in the form diffs compare: plain JSON types
// (numbers as int64, or float64 when not whole), Pulumi secrets as
// "[secret]", and, for Kubernetes objects (those with apiVersion and kind),
// without the fields the server owns. A Secret's stringData is folded into
// data. obj is not modified.
func normalize(obj map[string]any, keepStatus bool) (map[string]any, error) {
	if obj == nil {
		return nil, nil
	}
	if !isKubernetes(obj) {
		v, err := canonical(obj)
		if err != nil {
			return nil, err
		}
		m, _ := v.(map[string]any)
		return m, nil
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		switch k {
		case "status":
			if !keepStatus {
				continue
			}
		case "metadata":
			if md, ok := v.(map[string]any); ok {
				c, err := normalizeMetadata(md)
				if err != nil {
					return nil, err
				}
				out[k] = c
				continue
			}
		}
		c, err := canonical(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out[k] = c
	}
	if isSecret(out) {
		foldStringData(out)
	}
	return out, nil
}

func isKubernetes(obj map[string]any) bool {
	av, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	return av != "" && kind != ""
}

func isSecret(obj map[string]any) bool {
	return obj != nil && obj["apiVersion"] == "v1" && obj["kind"] == "Secret"
}

func normalizeMetadata(md map[string]any) (map[string]any, error) {
	out := make(map[string]any, len(md))
	for k, v := range md {
		if serverMetadata[k] {
			continue
		}
		c, err := canonical(v)
		if err != nil {
			return nil, fmt.Errorf("metadata.%s: %w", k, err)
		}
		if k == "annotations" {
			if a, ok := c.(map[string]any); ok {
				delete(a, lastApplied)
			}
		}
		if k == "annotations" || k == "labels" {
			if a, ok := c.(map[string]any); c == nil || ok && len(a) == 0 {
				continue
			}
		}
		out[k] = c
	}
	return out, nil
}

// foldStringData does what the API server does on write: stringData entries
// are base64-encoded into data, replacing entries of the same key.
func foldStringData(secret map[string]any) {
	sd, ok := secret["stringData"].(map[string]any)
	if !ok {
		return
	}
	data, _ := secret["data"].(map[string]any)
	if data == nil {
		data = make(map[string]any, len(sd))
	}
	for k, v := range sd {
		s, ok := v.(string)
		if !ok {
			s = fmt.Sprint(v)
		}
		data[k] = base64.StdEncoding.EncodeToString([]byte(s))
	}
	secret["data"] = data
	delete(secret, "stringData")
}

// canonical deep-copies v into plain JSON types.
func canonical(v any) (any, error) {
	switch v := v.(type) {
	case string:
		// Invalid UTF-8 becomes U+FFFD, as on its way through JSON.
		return strings.ToValidUTF8(v, "\uFFFD"), nil
	case nil, bool, int64:
		return v, nil
	case map[string]any:
		if v[pulumiSecretSigKey] == pulumiSecretSig {
			return secretPlaceholder, nil
		}
		out := make(map[string]any, len(v))
		for k, e := range v {
			c, err := canonical(e)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			c, err := canonical(e)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case int:
		return int64(v), nil
	case int32:
		return int64(v), nil
	case float64:
		return canonicalFloat(v), nil
	case json.Number:
		if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return n, nil
		}
		f, err := v.Float64()
		if err != nil {
			return nil, fmt.Errorf("number %q: %w", v, err)
		}
		return canonicalFloat(f), nil
	}
	// Typed Go values (structs, typed maps and slices, other number types):
	// take their JSON form.
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var generic any
	if err := dec.Decode(&generic); err != nil {
		return nil, err
	}
	return canonical(generic)
}

// canonicalFloat turns whole numbers into int64 so that 3 and 3.0 compare
// equal and print alike.
func canonicalFloat(f float64) any {
	if f == math.Trunc(f) && f >= math.MinInt64 && f < math.MaxInt64 {
		return int64(f)
	}
	return f
}

// toYAML prints a normalised value with sorted keys; nil prints as nothing.
// The output is what sigs.k8s.io/yaml (and so kubectl) prints, without its
// detour through JSON text: that library marshals with this same package.
func toYAML(obj map[string]any) (string, error) {
	if obj == nil {
		return "", nil
	}
	b, err := yamlv2.Marshal(obj)
	if err != nil {
		return "", err
	}
	return string(b), nil
}
