package diff

import (
	"testing"
)

// Manifests and live objects come from repositories and clusters others
// write: any bytes parse or fail, and what parses, normalised and compared
// with itself, shows no difference.
func FuzzNormalizeAndCompare(f *testing.F) {
	for _, seed := range []string{
		`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s","annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}"}},"stringData":{"a":"b"},"data":{"c":"ZA=="}}`,
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: '1'}\n---\nkind: List\nitems: [{kind: Pod, metadata: {name: p}}]\n",
		`{"kind":"Deployment","spec":{"replicas":1e400,"x":-0.0,"y":[null,{"":{}}]}}`, "- a\n- b\n", `{"metadata":null}`, "",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, err := Parse(data)
		if err != nil {
			return
		}
		pairs := make([]Pair, 0, len(objs))
		for _, o := range objs {
			pairs = append(pairs, Pair{Live: o, Desired: o})
		}
		rep, err := Objects(pairs, Options{})
		if err != nil {
			return
		}
		if rep.Modified != 0 || rep.Added != 0 || rep.Removed != 0 {
			t.Fatalf("an object compared with itself differs: %+v\n%q", rep, data)
		}
	})
}
