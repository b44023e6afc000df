package argocd

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/testdata/bench/fleetgen"
)

// What argocd-server's live feed sends with SlimFields decodes to what the
// whole Application does: no field the model reads is left out, for the
// bench's Applications (every state), the recorded one, and an app of apps.
func TestTheFeedsFieldsKeepWhatTheSlimDecoderReads(t *testing.T) {
	apps := []map[string]any{loadApp(t, "app-running.json")}
	parent := loadApp(t, "app-running.json")
	set(parent, []any{
		map[string]any{"group": "argoproj.io", "kind": "Application", "namespace": "argocd", "name": "child", "status": "OutOfSync", "health": map[string]any{"status": "Healthy"}},
		map[string]any{"group": "apps", "kind": "Deployment", "namespace": "web", "name": "web", "status": "Synced", "requiresPruning": true},
	}, "status", "resources")
	apps = append(apps, parent)
	now := time.Now()
	for i := range 60 {
		apps = append(apps, fleetgen.Application(i, now))
	}
	for _, app := range apps {
		whole, err := json.Marshal(app)
		if err != nil {
			t.Fatal(err)
		}
		var sent map[string]any
		if err := json.Unmarshal(whole, &sent); err != nil {
			t.Fatal(err)
		}
		keepFields("", sent, SlimFields)
		filtered, err := json.Marshal(sent)
		if err != nil {
			t.Fatal(err)
		}
		want, err := DecodeSlim(whole)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeSlim(filtered)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: decoded from the feed's fields:\n%v\nwant, from the whole object:\n%v", app["metadata"].(map[string]any)["name"], got, want)
		}
		if len(filtered) >= len(whole) && len(whole) > 4096 {
			t.Errorf("the fields keep %d of %d bytes", len(filtered), len(whole))
		}
	}
}

// keepFields leaves what argocd-server's fields parameter keeps (argoproj
// pkg's grpc/http marshaler): a member whose path is listed, whole; one
// whose path begins a listed one, with its members judged in turn; the
// elements of a list judged at the list's own path.
func keepFields(path string, v any, fields []string) {
	switch v := v.(type) {
	case map[string]any:
		for k, member := range v {
			p := k
			if path != "" {
				p = path + "." + k
			}
			listed, begins := false, false
			for _, f := range fields {
				listed = listed || f == p
				begins = begins || strings.HasPrefix(f, p)
			}
			switch {
			case listed:
			case begins:
				keepFields(p, member, fields)
			default:
				delete(v, k)
			}
		}
	case []any:
		for _, e := range v {
			keepFields(path, e, fields)
		}
	}
}
