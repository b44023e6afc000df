package actions

import "testing"

// undoHold takes back exactly the entry a pause added, under a test of it,
// and the list too when the pause created it.
func TestUndoHoldRemovesOnlyThePausesEntry(t *testing.T) {
	ours := map[string]any{"name": "web", "jsonPointers": []any{"/spec/syncPolicy/automated/enabled"}}
	theirs := map[string]any{"name": "api", "jsonPointers": []any{"/spec/source/targetRevision"}}
	set := func(entries ...any) map[string]any {
		return map[string]any{"spec": map[string]any{ignoreDiffField: entries}}
	}
	for _, tc := range []struct {
		name    string
		set     map[string]any
		created bool
		want    string
	}{
		{"after others", set(theirs, ours), false,
			`[{"op":"test","path":"/spec/ignoreApplicationDifferences/1","value":{"jsonPointers":["/spec/syncPolicy/automated/enabled"],"name":"web"}},{"op":"remove","path":"/spec/ignoreApplicationDifferences/1"}]`},
		{"the list it created, somebody added since", set(ours, theirs), true,
			`[{"op":"test","path":"/spec/ignoreApplicationDifferences/0","value":{"jsonPointers":["/spec/syncPolicy/automated/enabled"],"name":"web"}},{"op":"remove","path":"/spec/ignoreApplicationDifferences/0"}]`},
		{"the list it created, alone", set(ours), true,
			`[{"op":"test","path":"/spec/ignoreApplicationDifferences","value":[{"jsonPointers":["/spec/syncPolicy/automated/enabled"],"name":"web"}]},{"op":"remove","path":"/spec/ignoreApplicationDifferences"}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ops, found := undoHold(tc.set, &ownerHold{entry: ours, createdList: tc.created})
			if !found {
				t.Fatal("the entry was not found")
			}
			if got := patchText(ops); got != tc.want {
				t.Errorf("patch\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
	if _, found := undoHold(set(theirs), &ownerHold{entry: ours}); found {
		t.Error("found an entry that is not there")
	}
}
