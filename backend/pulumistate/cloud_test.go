package pulumistate

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeCloud answers like api.pulumi.com (bodies in the service's JSON
// shapes, as the sdk's apitype declares them) for one org with two stacks;
// acme/web/prod has an update in progress and a pending create.
type fakeCloud struct {
	mu       sync.Mutex
	inFlight bool
	posts    []string
	imported map[string]any
}

const exported = `{"version":3,"deployment":{"manifest":{"time":"2026-11-01T10:00:00Z","magic":"m","version":"v3.274.1"},` +
	`"resources":[{"urn":"urn:pulumi:prod::web::pulumi:pulumi:Stack::web-prod","custom":false,"type":"pulumi:pulumi:Stack"},` +
	`{"urn":"urn:pulumi:prod::web::aws:s3/bucket:Bucket::site","custom":true,"type":"aws:s3/bucket:Bucket"}],` +
	`"pending_operations":[{"resource":{"urn":"urn:pulumi:prod::web::aws:s3/bucket:Bucket::logs","custom":true,"type":"aws:s3/bucket:Bucket"},"type":"creating"}],` +
	`"metadata":{}}}`

func (f *fakeCloud) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "token test-token" {
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"code":401,"message":"Unauthorized: No credentials provided or are invalid."}`)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch p := r.URL.Path; {
	case p == "/api/user/stacks" && r.URL.Query().Get("continuationToken") == "":
		io.WriteString(w, `{"stacks":[{"orgName":"acme","projectName":"web","stackName":"prod","lastUpdate":1795970000,"resourceCount":2}],"continuationToken":"page2"}`)
	case p == "/api/user/stacks":
		io.WriteString(w, `{"stacks":[{"orgName":"acme","projectName":"web","stackName":"dev"}]}`)
	case p == "/api/stacks/acme/web/prod":
		op := `null`
		if f.inFlight {
			op = `{"kind":"update","author":"alice","started":1795970100}`
		}
		io.WriteString(w, `{"orgName":"acme","projectName":"web","stackName":"prod","currentOperation":`+op+`,"activeUpdate":"upd-42","tags":{},"version":7}`)
	case p == "/api/stacks/acme/web/prod/updates":
		io.WriteString(w, `{"updates":[{"kind":"update","startTime":1795970100,"message":"deploy","environment":{},"config":{},"result":"in-progress","endTime":0,"version":7,"resourceChanges":{"create":1}}]}`)
	case p == "/api/stacks/acme/web/prod/export":
		io.WriteString(w, exported)
	case r.Method == http.MethodPost:
		f.posts = append(f.posts, p)
		switch p {
		case "/api/stacks/acme/web/prod/update/upd-42/cancel":
			f.inFlight = false
		case "/api/stacks/acme/web/prod/import":
			json.NewDecoder(r.Body).Decode(&f.imported)
			io.WriteString(w, `{"updateId":"upd-43"}`)
		}
	default:
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"code":404,"message":"Not Found: Stack not found"}`)
	}
}

func cloud(t *testing.T, f *fakeCloud) Backend {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	t.Setenv("PULUMI_ACCESS_TOKEN", "test-token")
	b, err := Open(context.Background(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var prod = StackRef{Org: "acme", Project: "web", Stack: "prod"}

func TestCloudListsAndReadsStacks(t *testing.T) {
	b := cloud(t, &fakeCloud{inFlight: true})
	ctx := context.Background()
	stacks, err := b.Stacks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(stacks) != 2 || stacks[0].Ref != prod || stacks[0].Resources != 2 || stacks[1].Resources != -1 ||
		!stacks[0].LastUpdate.End.Equal(time.Unix(1795970000, 0)) {
		t.Fatalf("stacks over two pages = %+v", stacks)
	}

	info, err := b.Stack(ctx, prod)
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Locks) != 1 || info.Locks[0].ID != "upd-42" || info.Locks[0].User != "alice" || info.Locks[0].Holder != HolderUnknown {
		t.Errorf("locks = %+v; want update upd-42 by alice", info.Locks)
	}
	if info.LastUpdate == nil || info.LastUpdate.Result != "in-progress" || info.LastUpdate.Changes["create"] != 1 {
		t.Errorf("last update = %+v", info.LastUpdate)
	}
	if info.Resources != 2 || len(info.Pending) != 1 || info.Pending[0].Type != "creating" {
		t.Errorf("resources %d, pending %+v", info.Resources, info.Pending)
	}
	if _, err := b.Stack(ctx, StackRef{Org: "acme", Project: "web", Stack: "gone"}); err == nil || !strings.Contains(err.Error(), "Stack not found") {
		t.Errorf("missing stack: %v", err)
	}
}

func TestCloudUnstick(t *testing.T) {
	f := &fakeCloud{inFlight: true}
	b := cloud(t, f)
	ctx := context.Background()

	if _, err := b.ClearPending(ctx, prod); err == nil || !strings.Contains(err.Error(), "cancel it first") {
		t.Errorf("clearing pending operations during an update: %v", err)
	}
	r, err := b.BreakLock(ctx, prod, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Changes) != 1 || !strings.Contains(r.Changes[0], "POST /api/stacks/acme/web/prod/update/upd-42/cancel") || !strings.Contains(r.Changes[0], "alice") {
		t.Errorf("plan = %q", r.Changes)
	}
	if err := r.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.Apply(ctx); err == nil {
		t.Error("cancelling an update that is no longer in progress was not refused")
	}
	if _, err := b.BreakLock(ctx, prod, false); !errors.Is(err, ErrNothingToDo) {
		t.Errorf("breaking a lock that is not held: %v", err)
	}

	clear, err := b.ClearPending(ctx, prod)
	if err != nil {
		t.Fatal(err)
	}
	if err := clear.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	dep, _ := f.imported["deployment"].(map[string]any)
	if _, has := dep["pending_operations"]; has || len(dep["resources"].([]any)) != 2 || f.imported["version"] != float64(3) {
		t.Errorf("imported %v; want the export without pending_operations", f.imported)
	}
	if len(f.posts) != 2 {
		t.Errorf("posts = %v; want one cancel and one import", f.posts)
	}
}

func TestCloudTokenComesFromTheStoredLogin(t *testing.T) {
	f := &fakeCloud{}
	srv := httptest.NewServer(f)
	defer srv.Close()
	home := t.TempDir()
	creds := `{"current":"` + srv.URL + `","accessTokens":{"` + srv.URL + `":"test-token"},"accounts":{"` + srv.URL + `":{"accessToken":"test-token","username":"alice"}}}`
	if err := os.WriteFile(filepath.Join(home, "credentials.json"), []byte(creds), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PULUMI_HOME", home)
	t.Setenv("PULUMI_ACCESS_TOKEN", "")
	b, err := Open(context.Background(), srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Stacks(context.Background()); err != nil {
		t.Fatalf("with the stored token: %v", err)
	}

	t.Setenv("PULUMI_ACCESS_TOKEN", "wrong")
	b, _ = Open(context.Background(), srv.URL)
	_, err = b.Stacks(context.Background())
	if err == nil || !strings.Contains(err.Error(), "[401]") || strings.Contains(err.Error(), "wrong") {
		t.Errorf("bad token: %v; want a 401 that does not show the token", err)
	}
}
