package diff

import (
	"testing"
)

// The 10,000-line manifest with 100 scattered changes of the performance
// targets: line diff plus hunks.
func BenchmarkText10kLines100Changes(b *testing.B) {
	old, new := bigManifest(10000, 100)
	for b.Loop() {
		d := Text(old, new, DefaultTimeout)
		if len(d.Hunks(DefaultContext)) == 0 || d.Approximate {
			b.Fatal("no hunks, or an approximate diff")
		}
	}
}

// desiredOf is the manifest a live object came from, with a few edits.
func desiredOf(b *testing.B, live map[string]any) map[string]any {
	objs, err := Parse([]byte(live["metadata"].(map[string]any)["annotations"].(map[string]any)[lastApplied].(string)))
	if err != nil {
		b.Fatal(err)
	}
	d := objs[0]
	spec := d["spec"].(map[string]any)
	spec["replicas"] = 5
	c := spec["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	c["image"] = "registry.example.com/shop/checkout:v2.15.0"
	c["env"] = append(c["env"].([]any), map[string]any{"name": "NEW", "value": "1"})
	return d
}

// Normalising a realistic 14 KB live Deployment (managedFields, status,
// last-applied annotation) into the YAML the diffs compare.
func BenchmarkNormalize14KB(b *testing.B) {
	live := loadLive(b)
	for b.Loop() {
		if _, err := YAML(live, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// The field-path summary of that Deployment against its edited manifest:
// replicas, image, an added env var, and the revision annotation only live has.
func BenchmarkFieldPaths(b *testing.B) {
	live, err := normalize(loadLive(b), false)
	if err != nil {
		b.Fatal(err)
	}
	desired, err := normalize(desiredOf(b, loadLive(b)), false)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if len(fieldChanges(live, desired)) != 4 {
			b.Fatal("want 4 changed fields")
		}
	}
}

// One object end to end: normalise, mask, field paths, YAML, line diff.
func BenchmarkObject14KB(b *testing.B) {
	p := Pair{Live: loadLive(b)}
	p.Desired = desiredOf(b, p.Live)
	for b.Loop() {
		d, err := Object(p, Options{})
		if err != nil || d.Change != Modified {
			b.Fatal(err)
		}
	}
}
