package argoapi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// Every write is JSON, as argocd-server demands of anything but a GET
// (415 otherwise), a DELETE without a body too; the Application's namespace
// travels as appNamespace.
func TestWritesAreJSONAndNameTheApplicationsNamespace(t *testing.T) {
	var seen []string
	c := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, `{"message":"unsupported media type"}`, http.StatusUnsupportedMediaType)
			return
		}
		body, _ := io.ReadAll(r.Body)
		seen = append(seen, r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery+" "+string(body))
		w.Write([]byte(`{"metadata":{"name":"web"}}`))
	})
	ctx, app := context.Background(), App{Namespace: "team-a", Name: "web"}
	if _, err := c.Sync(ctx, app, SyncRequest{Revision: "abc", Prune: true, Infos: []any{map[string]any{"name": "Reason", "value": "INC-1"}},
		SyncOptions: &SyncOptions{Items: []string{"ApplyOutOfSyncOnly=true"}}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Terminate(ctx, app); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Patch(ctx, app, []byte(`[{"op":"test","path":"/metadata/uid","value":"u1"}]`)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Refresh(ctx, app, "hard"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Rollback(ctx, app, 3, false, false); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`POST /api/v1/applications/web/sync? {"name":"web","appNamespace":"team-a","revision":"abc","prune":true,"infos":[{"name":"Reason","value":"INC-1"}],"syncOptions":{"items":["ApplyOutOfSyncOnly=true"]}}`,
		`DELETE /api/v1/applications/web/operation?appNamespace=team-a `,
		`PATCH /api/v1/applications/web? {"appNamespace":"team-a","name":"web","patch":"[{\"op\":\"test\",\"path\":\"/metadata/uid\",\"value\":\"u1\"}]","patchType":"json"}`,
		`GET /api/v1/applications/web?appNamespace=team-a&refresh=hard `,
		`POST /api/v1/applications/web/rollback? {"appNamespace":"team-a","dryRun":false,"id":3,"name":"web","prune":false}`,
	}
	if strings.Join(seen, "\n") != strings.Join(want, "\n") {
		t.Errorf("requests:\n%s\nwant:\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
}

// can-i is asked with the Application's RBAC name, and its answer kept a
// while: a menu drawn for each move of the cursor does not ask again.
func TestCanIAsksOnceForAWhile(t *testing.T) {
	var asked atomic.Int32
	c := serve(t, func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		answer := "no"
		if r.URL.Path == "/api/v1/account/can-i/applications/sync/default/team-a/web" {
			answer = "yes"
		}
		json.NewEncoder(w).Encode(map[string]string{"value": answer})
	})
	ctx := context.Background()
	for range 3 {
		yes, err := c.CanI(ctx, "applications", "sync", RBACName("default", "team-a", "web", true))
		if err != nil || !yes {
			t.Fatalf("can-i sync: %v %v, want yes", yes, err)
		}
	}
	if no, err := c.CanI(ctx, "applications", "update", RBACName("", "argocd", "web", false)); err != nil || no {
		t.Fatalf("can-i update default/web: %v %v, want no", no, err)
	}
	if n := asked.Load(); n != 2 {
		t.Errorf("the server was asked %d times, want once per question", n)
	}
}

// Argo CD's refusals are told apart: RBAC (403) from everything else.
func TestARefusalOfArgoCDsRBACIsPermissionDenied(t *testing.T) {
	c := serve(t, func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		w.Write([]byte(`{"code":7,"message":"permission denied: applications, sync, default/web, sub: dave"}`))
	})
	_, err := c.Sync(context.Background(), App{Name: "web"}, SyncRequest{})
	if !PermissionDenied(err) || !strings.Contains(err.Error(), "permission denied: applications, sync, default/web, sub: dave") {
		t.Fatalf("got %v", err)
	}
}
