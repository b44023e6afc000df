package diff

import (
	"errors"
	"strings"
	"time"
)

// DefaultTimeout bounds each line diff when Options.Timeout is zero.
const DefaultTimeout = time.Second

// Options tune how objects are compared. The zero value suits the Argo CD diff
// view.
type Options struct {
	// KeepStatus compares status too; by default it is dropped.
	KeepStatus bool
	// SecretFields names fields whose values are secret, written as field
	// paths are (outputs.dbPassword, spec.env[*].value, data.*), with * for
	// any key or index. Their values are masked like a Secret's data.
	SecretFields []string
	// Timeout bounds each line diff: 0 means DefaultTimeout, negative none.
	Timeout time.Duration
}

func (o Options) timeout() time.Duration {
	if o.Timeout == 0 {
		return DefaultTimeout
	}
	return o.Timeout
}

// ObjectKey names an object in diff listings.
type ObjectKey struct {
	Group, Kind, Namespace, Name string
}

// KeyOf reads an object's key from its apiVersion, kind and metadata.
func KeyOf(obj map[string]any) ObjectKey {
	var k ObjectKey
	if av, ok := obj["apiVersion"].(string); ok {
		if g, _, found := strings.Cut(av, "/"); found {
			k.Group = g
		}
	}
	k.Kind, _ = obj["kind"].(string)
	if md, ok := obj["metadata"].(map[string]any); ok {
		k.Namespace, _ = md["namespace"].(string)
		k.Name, _ = md["name"].(string)
	}
	return k
}

// String writes the key as [group/]Kind/[namespace/]name.
func (k ObjectKey) String() string {
	var b strings.Builder
	if k.Group != "" {
		b.WriteString(k.Group + "/")
	}
	b.WriteString(k.Kind + "/")
	if k.Namespace != "" {
		b.WriteString(k.Namespace + "/")
	}
	b.WriteString(k.Name)
	return b.String()
}

// Pair is one object as it is (Live) and as it should be (Desired); either
// may be nil for an object that is only on one side. A zero Key is read from
// the objects.
type Pair struct {
	Key     ObjectKey
	Live    map[string]any
	Desired map[string]any
}

func pairKey(p Pair) ObjectKey {
	switch {
	case p.Key != ObjectKey{}:
		return p.Key
	case p.Desired != nil:
		return KeyOf(p.Desired)
	}
	return KeyOf(p.Live)
}

// ObjectDiff is the comparison of one object.
type ObjectDiff struct {
	Key    ObjectKey
	Change Change
	// Fields lists the changed field paths of a modified object, in document
	// order; it is empty for added, removed and unchanged objects.
	Fields []FieldChange
	// Live and Desired are the normalised, masked YAML of each side; empty for
	// a side the object is not on.
	Live, Desired string
	// Text is the line diff of Live against Desired.
	Text *TextDiff
	// Warning says what removing (pruning) the object destroys beyond it.
	Warning string
}

// Object compares the two sides of one object. The inputs are not modified.
func Object(p Pair, opts Options) (*ObjectDiff, error) {
	if p.Live == nil && p.Desired == nil {
		return nil, errors.New("diff: object has neither a live nor a desired side")
	}
	paths, err := secretPaths(opts.SecretFields)
	if err != nil {
		return nil, err
	}
	d := &ObjectDiff{Key: pairKey(p)}
	live, err := normalize(p.Live, opts.KeepStatus)
	if err != nil {
		return nil, err
	}
	desired, err := normalize(p.Desired, opts.KeepStatus)
	if err != nil {
		return nil, err
	}
	maskSecrets(live, desired, paths)

	switch {
	case live == nil:
		d.Change = Added
	case desired == nil:
		d.Change = Removed
		d.Warning = pruneWarning(d.Key, p.Live)
	default:
		d.Fields = fieldChanges(live, desired)
		if len(d.Fields) > 0 {
			d.Change = Modified
		}
	}
	if d.Live, err = toYAML(live); err != nil {
		return nil, err
	}
	if d.Desired, err = toYAML(desired); err != nil {
		return nil, err
	}
	d.Text = Text(d.Live, d.Desired, opts.timeout())
	return d, nil
}

// YAML renders one object as the diffs show it: normalised, with secrets
// masked.
func YAML(obj map[string]any, opts Options) (string, error) {
	paths, err := secretPaths(opts.SecretFields)
	if err != nil {
		return "", err
	}
	n, err := normalize(obj, opts.KeepStatus)
	if err != nil {
		return "", err
	}
	maskSecrets(n, nil, paths)
	return toYAML(n)
}
