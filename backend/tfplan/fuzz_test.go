package tfplan

import (
	"testing"

	"github.com/driftdeck/driftdeck/backend/diff"
)

// A stored plan is written by whoever can write the namespace's Secrets and
// ConfigMaps: any JSON or text reads as a plan or an error, never a panic.
func FuzzParseJSON(f *testing.F) {
	for _, seed := range []string{
		`{"format_version":"1.2","resource_changes":[{"address":"a.b","change":{"actions":["update"],"before":{"p":"x","l":[1]},"after":{"p":"y","l":[2]},"before_sensitive":{"p":true,"l":[true]},"after_sensitive":{"p":true,"l":true},"after_unknown":{"q":true}}}],"output_changes":{"o":{"actions":["create"],"after":"v","after_sensitive":true}}}`,
		`{"resource_changes":[{"change":{"actions":["delete","create"],"before_sensitive":[{"a":true}],"after_sensitive":"x"}}]}`,
		`{"resource_drift":[{"address":"x"}]}`, `null`, `{`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = ParseJSON(data, diff.Options{})
	})
}

func FuzzParseHuman(f *testing.F) {
	for _, seed := range []string{
		"  # aws_instance.web will be updated in-place\n  ~ resource \"aws_instance\" \"web\" {\n      ~ size = \"small\" -> \"large\"\n      ~ token = (sensitive value)\n    }\n\nPlan: 0 to add, 1 to change, 0 to destroy.\n",
		"  # a.b must be replaced\n-/+ resource \"a\" \"b\" {\n      ~ x = <<-EOT\n          y\n        EOT\n    }\n", "Changes to Outputs:\n  + o = (sensitive value)\n", "{\n}\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		_, _ = ParseHuman(text, diff.Options{})
	})
}
