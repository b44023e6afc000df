package logs

import (
	"strings"
	"testing"
)

func TestAControllerLogIsNarrowedToOneObjectAndMadeReadable(t *testing.T) {
	about := About{Kind: "HelmRelease", Namespace: "team-a", Name: "api"}
	cases := []struct {
		name, raw, want string
		kept            bool
	}{
		{"its line, read as flux logs prints it",
			`{"level":"info","ts":"2026-12-05T10:00:00.000Z","msg":"release in-sync with desired state","controller":"helmrelease","controllerGroup":"helm.toolkit.fluxcd.io","controllerKind":"HelmRelease","HelmRelease":{"name":"api","namespace":"team-a"},"namespace":"team-a","name":"api","reconcileID":"6f1c","revision":"1.2.0"}`,
			"2026-12-05T10:00:00.000Z info release in-sync with desired state  revision=1.2.0", true},
		{"the error first, other fields compact and quoted when spaced",
			`{"level":"error","ts":"2026-12-05T10:00:01.000Z","msg":"Reconciler error","controllerKind":"HelmRelease","namespace":"team-a","name":"api","attempts":3,"note":"two words","error":"install retries exhausted"}`,
			`2026-12-05T10:00:01.000Z error Reconciler error: install retries exhausted  attempts=3  note="two words"`, true},
		{"the same name in another namespace", `{"level":"info","msg":"x","controllerKind":"HelmRelease","namespace":"team-b","name":"api"}`, "", false},
		{"another kind of the same name", `{"level":"info","msg":"x","controllerKind":"Kustomization","namespace":"team-a","name":"api"}`, "", false},
		{"a line that is not JSON", `I1205 10:00:00.000000 1 leaderelection.go:250] attempting to acquire leader lease`, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, kept := about.ParseLine(c.raw)
			if kept != c.kept || got != c.want {
				t.Errorf("got %q (kept %v), want %q (kept %v)", got, kept, c.want, c.kept)
			}
		})
	}

	t.Run("a line cut at the size limit is matched by the fields it starts with", func(t *testing.T) {
		start := `{"level":"info","ts":"2026-12-05T10:00:02.000Z","msg":"server-side apply completed","controllerKind":"HelmRelease","namespace":"team-a","name":"api","output":{"ConfigMap/team-a/c0":"created",`
		cut := start + strings.Repeat(`"ConfigMap/team-a/cN":"created",`, 600)[:MaxLineBytes-len(start)]
		got, kept := about.ParseLine(cut)
		if !kept || got != cut {
			t.Errorf("the cut line was dropped or changed (kept %v)", kept)
		}
		other := strings.Replace(cut, `"name":"api"`, `"name":"web"`, 1)
		if _, kept := about.ParseLine(other); kept {
			t.Error("a cut line about another object was kept")
		}
	})
}

// A busy kustomize-controller writes thousands of lines a minute, most of
// them about other objects: narrowing must cost little per line.
func BenchmarkNarrowingAControllerLog(b *testing.B) {
	about := About{Kind: "Kustomization", Namespace: "team-a", Name: "api"}
	other := `{"level":"info","ts":"2026-12-05T10:00:00.000Z","msg":"server-side apply completed","controller":"kustomization","controllerGroup":"kustomize.toolkit.fluxcd.io","controllerKind":"Kustomization","Kustomization":{"name":"web","namespace":"team-b"},"namespace":"team-b","name":"web","reconcileID":"6f1c","output":{"ConfigMap/team-b/web":"unchanged","Deployment/team-b/web":"unchanged"},"revision":"main@sha1:1"}`
	own := strings.ReplaceAll(strings.ReplaceAll(other, "team-b", "team-a"), `"web"`, `"api"`)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		line := other
		if i%20 == 0 {
			line = own
		}
		about.ParseLine(line)
	}
}
