package engine

import (
	"bufio"
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
)

// The recorded streams were written by pulumi v3.274.1 for an inline
// program of Stash resources whose values changed from "one" to "two":
// "a" is updated, "s" holds a secret, "r" is replaced (replaceOnChanges),
// "d" is updated. detailed-diff.jsonl is one event in the same format from
// a provider that returns a detailed diff (the built-in Stash does not).
func recorded(t testing.TB, name string) []apitype.EngineEvent {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []apitype.EngineEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e apitype.EngineEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

func convertAll(preview bool, evs []apitype.EngineEvent) (*converter, []pulumirun.Event) {
	var got []pulumirun.Event
	c := newConverter(preview, func(e pulumirun.Event) { got = append(got, e) })
	for _, e := range evs {
		c.handle(e)
	}
	return c, got
}

func stepByName(t *testing.T, steps []pulumirun.Step, name string) pulumirun.Step {
	t.Helper()
	for _, s := range steps {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no step %q in %+v", name, steps)
	return pulumirun.Step{}
}

func TestConvertRecordedPreview(t *testing.T) {
	c, events := convertAll(true, recorded(t, "preview-update.jsonl"))
	steps := c.stepsSoFar()

	urns := map[string]int{}
	for _, s := range steps {
		urns[s.URN]++
	}
	if len(steps) != 6 || len(urns) != 6 {
		t.Fatalf("want 6 lines (stack, provider, a, s, r, d), one per URN; got %d: %+v", len(steps), steps)
	}

	a := stepByName(t, steps, "a")
	want := []pulumirun.PropertyDiff{{Path: "input", Kind: pulumirun.DiffUpdate, Old: `"one"`, New: `"two"`}}
	if a.Op != pulumirun.OpUpdate || a.State != pulumirun.Planned || !reflect.DeepEqual(a.Diffs, want) {
		t.Errorf("a = %+v; want a planned update with %+v", a, want)
	}

	s := stepByName(t, steps, "s")
	if len(s.Diffs) != 1 || s.Diffs[0].Old != pulumirun.SecretPlaceholder || s.Diffs[0].New != pulumirun.SecretPlaceholder {
		t.Errorf("secret stash diffs = %+v; want [secret] on both sides", s.Diffs)
	}

	r := stepByName(t, steps, "r")
	wantParts := []pulumirun.Op{pulumirun.OpCreateReplacement, pulumirun.OpReplace, pulumirun.OpDeleteReplaced}
	if r.Op != pulumirun.OpReplace || !reflect.DeepEqual(r.Parts, wantParts) || !reflect.DeepEqual(r.ReplaceKeys, []string{"input"}) {
		t.Errorf("r = %+v; want one replace line with parts %v and key input", r, wantParts)
	}
	// Of the object input, the key that changes, not the whole object.
	if want := []pulumirun.PropertyDiff{{Path: "input.k", Kind: pulumirun.DiffUpdate, Old: `"one"`, New: `"two"`, Replace: true}}; !reflect.DeepEqual(r.Diffs, want) {
		t.Errorf("r diffs = %+v; want %+v marked as forcing replacement", r.Diffs, want)
	}

	// Each change of a line is delivered as it happens, the summary last.
	var rUpdates int
	for _, e := range events {
		if e.Step != nil && e.Step.Name == "r" {
			rUpdates++
		}
	}
	if rUpdates != 3 {
		t.Errorf("r was delivered %d times; want once per part (3)", rUpdates)
	}
	last := events[len(events)-1]
	if last.Summary == nil || last.Summary.Changes[pulumirun.OpReplace] != 1 || last.Summary.Changes[pulumirun.OpUpdate] != 3 || last.Summary.Result != "succeeded" {
		t.Errorf("last event = %+v; want the summary (1 replace, 3 updates, succeeded)", last)
	}
}

func TestConvertRecordedApplyTracksProgress(t *testing.T) {
	evs := recorded(t, "apply-update.jsonl")
	var rStates []pulumirun.StepState
	c := newConverter(false, func(e pulumirun.Event) {
		if e.Step != nil && e.Step.Name == "r" {
			rStates = append(rStates, e.Step.State)
		}
	})
	for _, e := range evs {
		c.handle(e)
	}
	// r: three parts start (running); done only once the old one is deleted.
	want := []pulumirun.StepState{pulumirun.Running, pulumirun.Running, pulumirun.Running, pulumirun.Done}
	if !reflect.DeepEqual(rStates, want) {
		t.Errorf("r states = %v; want %v", rStates, want)
	}
	for _, s := range c.stepsSoFar() {
		if s.State != pulumirun.Done {
			t.Errorf("%s ended %s; want done", s.Name, s.State)
		}
	}
	var applied []string
	for _, s := range c.applied() {
		applied = append(applied, string(s.Op)+" "+s.Name)
	}
	sort.Strings(applied)
	if want := []string{"replace r", "update a", "update d", "update s"}; !reflect.DeepEqual(applied, want) {
		t.Errorf("applied = %v; want %v (the unchanged stack and provider are not changes)", applied, want)
	}
}

func TestConvertDetailedDiff(t *testing.T) {
	c, _ := convertAll(true, recorded(t, "detailed-diff.jsonl"))
	step := stepByName(t, c.stepsSoFar(), "logs")
	want := []pulumirun.PropertyDiff{
		{Path: "region", Kind: pulumirun.DiffAdd, New: `"eu-west-1"`, Replace: true},
		{Path: "rules[1].days", Kind: pulumirun.DiffUpdate, Old: "30", New: pulumirun.UnknownPlaceholder},
		{Path: "size", Kind: pulumirun.DiffUpdate, Old: "10", New: "20"},
		{Path: "tags.env", Kind: pulumirun.DiffUpdate, Old: `"dev"`, New: `"prod"`},
		{Path: "tags.owner", Kind: pulumirun.DiffAdd, New: `"ops"`},
		{Path: "tags.team", Kind: pulumirun.DiffDelete, Old: `"a"`},
		{Path: "token", Kind: pulumirun.DiffUpdate, Old: pulumirun.SecretPlaceholder, New: pulumirun.SecretPlaceholder},
	}
	if !reflect.DeepEqual(step.Diffs, want) {
		t.Errorf("diffs:\n got %+v\nwant %+v", step.Diffs, want)
	}
	if step.Op != pulumirun.OpReplace || !reflect.DeepEqual(step.ReplaceKeys, []string{"region"}) {
		t.Errorf("step = %+v; want a replace forced by region", step)
	}
}

func TestConvertFallsBackToDiffKeysWithoutDetailedDiff(t *testing.T) {
	evs := recorded(t, "detailed-diff.jsonl")
	md := &evs[0].ResourcePreEvent.Metadata
	md.DetailedDiff = nil
	md.Diffs = []string{"size", "token"}
	c, _ := convertAll(true, evs)
	got := stepByName(t, c.stepsSoFar(), "logs").Diffs
	want := []pulumirun.PropertyDiff{
		{Path: "size", Kind: pulumirun.DiffUpdate, Old: "10", New: "20"},
		{Path: "token", Kind: pulumirun.DiffAdd, New: pulumirun.SecretPlaceholder},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("diffs = %+v; want %+v (old inputs had no token)", got, want)
	}
}

func TestNoValueOfASecretLeaks(t *testing.T) {
	secret := map[string]any{"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", "plaintext": `"hunter2"`}
	props := map[string]any{"nested": map[string]any{"pw": secret}, "list": []any{secret}}
	for _, v := range []any{secret, props, props["list"]} {
		if out := render(v); strings.Contains(out, "hunter2") {
			t.Errorf("render(%v) = %s: shows the secret", v, out)
		}
	}
	v, ok := lookup(map[string]any{"cfg": secret}, []any{"cfg", "inner", "key"})
	if !ok || render(v) != pulumirun.SecretPlaceholder {
		t.Errorf("a path below a secret renders %q; want %s", render(v), pulumirun.SecretPlaceholder)
	}
}

func TestPlanChangedMessage(t *testing.T) {
	msg := "resource urn:pulumi:dev::proj::pulumi:index:Stash::a violates plan: properties changed: ~~input[{two}!={three}]"
	e := &pulumirun.PlanChangedError{Resources: []string{planViolation("urn:pulumi:dev::proj::pulumi:index:Stash::a", msg)}}
	got := e.Error()
	want := "the program or state changed since the preview you approved: nothing was applied; preview again (a: properties changed)"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	e.Applied = []pulumirun.Step{{Op: pulumirun.OpUpdate, Name: "b", State: pulumirun.Done}, {Op: pulumirun.OpReplace, Name: "c", State: pulumirun.Running}}
	if !strings.Contains(e.Error(), "2 approved change(s) were applied before the difference was found (update b, replace c (partly))") {
		t.Errorf("partial apply not reported: %q", e.Error())
	}
}
