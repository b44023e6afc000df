package flux

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
)

func gitRepository(name string, ready map[string]any, suspend bool) map[string]any {
	obj := map[string]any{
		"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "GitRepository",
		"metadata": map[string]any{"name": name, "namespace": "flux-system"},
		"spec":     map[string]any{"url": "https://example.com/repo.git", "suspend": suspend},
		"status": map[string]any{
			"artifact": map[string]any{"revision": "main@sha1:1a2b", "digest": "sha256:ffff", "url": "http://x/y.tar.gz"},
		},
	}
	if ready != nil {
		set(obj, conds(ready), "status", "conditions")
	}
	return obj
}

// waitingForItsSource is a Kustomization the controller could not give an
// artifact: Ready=False ArtifactFailed, as kustomize-controller writes it.
func waitingForItsSource(t *testing.T, source string) *model.Unit {
	obj := load(t, "kustomization.json")
	set(obj, map[string]any{"kind": "GitRepository", "name": source}, "spec", "sourceRef")
	set(obj, conds(cond("Ready", "False", ReasonArtifactFailed, "Source artifact not found, retrying in 30s", 3*time.Minute)), "status", "conditions")
	set(obj, "flux-system", "metadata", "namespace")
	return ConvertKustomization("c", obj)
}

func classify(x *Sources, u *model.Unit) *model.Unit {
	x.Classify(u, now)
	return derived(u)
}

func TestUnitWaitingForAnUnreadySourceIsStuckWithTheSourcesReason(t *testing.T) {
	x := NewSources()
	x.Replace("c", "GitRepository", "", []Source{ConvertSource("GitRepository", gitRepository("infra",
		cond("Ready", "False", "AuthenticationFailed", "ssh: unable to authenticate\nattempted methods [none]", 20*time.Minute), false))})

	u := classify(x, waitingForItsSource(t, "infra"))
	if u.Run != model.Stuck || u.RunReason != "the source GitRepository/flux-system/infra is not ready: AuthenticationFailed: ssh: unable to authenticate" {
		t.Fatalf("run %s, reason %q", u.Run, u.RunReason)
	}
	if !strings.Contains(u.StuckRule, "source is not Ready") || !u.RunSince.Equal(now.Add(-20*time.Minute)) {
		t.Errorf("rule %q since %v: want the source's rule, dated from when the source failed", u.StuckRule, u.RunSince)
	}
	want := model.SourceState{Ref: model.Ref{Kind: "GitRepository", Namespace: "flux-system", Name: "infra"}, Ready: "False",
		Reason: "AuthenticationFailed", Message: "ssh: unable to authenticate\nattempted methods [none]", Since: now.Add(-20 * time.Minute), Revision: "main@sha1:1a2b"}
	if u.SourceState == nil || *u.SourceState != want {
		t.Errorf("source state %+v, want %+v", u.SourceState, want)
	}
}

func TestUnitOfAMissingOrSuspendedSourceIsStuck(t *testing.T) {
	x := NewSources()
	x.Replace("c", "GitRepository", "", []Source{ConvertSource("GitRepository", gitRepository("paused", nil, true))})
	if u := classify(x, waitingForItsSource(t, "gone")); u.Run != model.Stuck || !u.SourceState.Missing || !strings.Contains(u.StuckRule, "does not exist") {
		t.Errorf("missing source: run %s (%q), rule %q", u.Run, u.RunReason, u.StuckRule)
	}
	if u := classify(x, waitingForItsSource(t, "paused")); u.Run != model.Stuck || !strings.Contains(u.RunReason, "is suspended") {
		t.Errorf("suspended source: run %s (%q)", u.Run, u.RunReason)
	}
}

// Until the source kind is listed, nothing is known about it: the unit says
// what its own conditions say (running, stuck only by time).
func TestUnitKeepsItsOwnVerdictWhileSourcesAreUnknown(t *testing.T) {
	u := classify(NewSources(), waitingForItsSource(t, "infra"))
	if u.Run != model.Running || u.SourceState != nil || !strings.Contains(u.Persisting, "waiting for the source") {
		t.Errorf("run %s, source %+v, persisting %q", u.Run, u.SourceState, u.Persisting)
	}
}

// A ready unit whose source now fails keeps applying the last artifact:
// not stuck, but it shows the source's state.
func TestReadyUnitShowsItsFailingSourceWithoutBeingStuck(t *testing.T) {
	x := NewSources()
	x.Put("c", ConvertSource("GitRepository", gitRepository("flux-system", cond("Ready", "False", "GitOperationFailed", "timeout", time.Minute), false)))
	x.Replace("c", "GitRepository", "team-a", nil) // another namespace's list keeps this one
	obj := load(t, "kustomization.json")
	set(obj, "flux-system", "metadata", "namespace")
	u := classify(x, ConvertKustomization("c", obj))
	if u.Run == model.Stuck || u.SourceState == nil || u.SourceState.Ready != "False" || u.SourceState.Reason != "GitOperationFailed" {
		t.Errorf("run %s (%q), source %+v", u.Run, u.RunReason, u.SourceState)
	}
}

func TestSourceSlimDecodeReadsWhatTheWholeObjectGives(t *testing.T) {
	obj := gitRepository("infra", cond("Ready", "True", "Succeeded", "stored artifact", time.Hour), false)
	data, _ := json.Marshal(obj)
	slim, err := DecodeSource(data)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ConvertSource("GitRepository", slim), ConvertSource("GitRepository", obj); !reflect.DeepEqual(got, want) {
		t.Errorf("slim %+v, whole %+v", got, want)
	}
	if _, ok := slim["status"].(map[string]any)["artifact"].(map[string]any)["url"]; ok {
		t.Error("the slim decoder kept the artifact's URL")
	}
}

func TestSourceMessageIsBounded(t *testing.T) {
	s := ConvertSource("GitRepository", gitRepository("big", cond("Ready", "False", "GitOperationFailed", strings.Repeat("x", 1<<20), 0), false))
	if len(s.Ready.Message) > model.TextLimit+40 || !strings.HasSuffix(s.Ready.Message, " bytes more)") {
		t.Errorf("a 1 MB message is kept as %d bytes", len(s.Ready.Message))
	}
}
