package fleet

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/argoapi"
	"github.com/driftdeck/driftdeck/backend/argodiff"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// The changes argocd-server sends while the list is still being read are
// merged over it by resourceVersion: a newer change and a deletion win
// over the list, an older change does not, and an Application created
// meanwhile is added. The feed is asked from a version (no replay of every
// Application) with the fields the model reads, and the list only once the
// feed's request is out.
func TestClusterTheArgoCDFeedsChangesDuringTheListAreMergedByVersion(t *testing.T) {
	c := testcluster.Shared(t)
	app := func(name, rv, sync string) string {
		return fmt.Sprintf(`{"metadata":{"name":%q,"namespace":"argocd","resourceVersion":%q},"spec":{"project":"default"},"status":{"sync":{"status":%q},"health":{"status":"Healthy"}}}`, name, rv, sync)
	}
	fed := make(chan struct{})
	var feedQuery string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v1/stream/applications":
			feedQuery = r.URL.RawQuery
			for _, ev := range []string{
				`{"result":{"type":"MODIFIED","application":` + app("changed", "20", "OutOfSync") + `}}`,
				`{"result":{"type":"DELETED","application":` + app("deleted", "21", "Synced") + `}}`,
				`{"result":{"type":"MODIFIED","application":` + app("older", "5", "OutOfSync") + `}}`,
				`{"result":{"type":"ADDED","application":` + app("created", "22", "Synced") + `}}`,
			} {
				fmt.Fprintln(w, ev)
			}
			w.(http.Flusher).Flush()
			close(fed)
			<-r.Context().Done()
		case "/api/v1/applications":
			select {
			case <-fed:
			case <-time.After(30 * time.Second):
				t.Error("the list was asked for, yet no feed was")
			}
			time.Sleep(200 * time.Millisecond) // the events are read meanwhile
			fmt.Fprintf(w, `{"items":[%s,%s,%s]}`, app("changed", "10", "Synced"), app("deleted", "11", "Synced"), app("older", "15", "Synced"))
		case "/api/v1/session/userinfo":
			fmt.Fprint(w, `{"loggedIn":true,"username":"alice"}`)
		default:
			fmt.Fprint(w, `{"items":[]}`)
		}
	}))
	t.Cleanup(srv.Close)
	client, err := argoapi.New(argodiff.NewServerConfig(srv.URL, "token"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := New(Options{Engines: []model.Engine{model.EngineArgoCD}, Argo: []*ArgoRoute{{Client: client, Context: "feed"}}})
	addContext(t, ctx, f, "feed", c.Config(), "")
	waitSynced(t, ctx, f, 60*time.Second)
	f.Store.Tick()
	got := map[string]model.SyncState{}
	for _, u := range f.Store.Snapshot() {
		got[u.Key.Name] = u.Sync
	}
	want := map[string]model.SyncState{"changed": model.Drifted, "older": model.InSync, "created": model.InSync}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("units %v; want %v", got, want)
	}
	if !strings.Contains(feedQuery, "resourceVersion=1") || !strings.Contains(feedQuery, "result.application.status.sync") {
		t.Errorf("the feed was asked with %q; want a version and the fields the model reads", feedQuery)
	}
}
