package argoapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/driftdeck/driftdeck/backend/argodiff"
)

func serve(t testing.TB, h http.HandlerFunc) *Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c, err := New(argodiff.NewServerConfig(srv.URL, "secret-token"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The feed hands each event on with its Application, resumes from the
// version asked, sends the token, and ends with the server's own error.
func TestWatchHandsOnEventsAndEndsWithTheServersError(t *testing.T) {
	c := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/stream/applications" || r.URL.Query().Get("resourceVersion") != "41" || r.Header.Get("Authorization") != "Bearer secret-token" {
			http.Error(w, "unexpected request", http.StatusBadRequest)
			return
		}
		w.Write([]byte(`{"result":{"type":"ADDED","application":{"metadata":{"name":"web"}}}}` + "\n"))
		w.Write([]byte(`{"result":{"type":"DELETED","application":{"metadata":{"name":"api"}}}}` + "\n"))
		w.Write([]byte(`{"error":{"http_code":503,"message":"server shutting down"}}` + "\n"))
	})
	var got []string
	err := c.Watch(context.Background(), WatchOptions{From: "41"}, nil, func(ev Event) {
		md, _ := ev.App["metadata"].(map[string]any)
		got = append(got, ev.Type+" "+md["name"].(string))
	})
	if strings.Join(got, ", ") != "ADDED web, DELETED api" {
		t.Errorf("events %v", got)
	}
	if err == nil || !strings.Contains(err.Error(), "server shutting down") {
		t.Errorf("the feed ended with %v, want the server's message", err)
	}
}

// A rejected token says what to do, and never shows the token.
func TestARejectedTokenSaysToLogInAgain(t *testing.T) {
	c := serve(t, func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":"invalid session: token has expired","code":16,"message":"invalid session: token has expired"}`))
	})
	_, err := applications(c, nil)
	if !Unauthorized(err) || !strings.Contains(err.Error(), "token has expired") || !strings.Contains(err.Error(), "argocd login") || strings.Contains(err.Error(), "secret-token") {
		t.Fatalf("got %v", err)
	}
}

// applications lists the Applications as they are decoded.
func applications(c *Client, decode Decoder) ([]map[string]any, error) {
	return ListApplications(context.Background(), c, decode, func(app map[string]any) map[string]any { return app })
}

// Each Application of the list is kept as keep makes it, in the list's
// order, though they are decoded and kept on several goroutines at once.
func TestTheListKeepsWhatKeepMakesOfEachApplicationInItsOrder(t *testing.T) {
	var body strings.Builder
	body.WriteString(`{"metadata":{"resourceVersion":"9"},"items":[`)
	for i := range 500 {
		if i > 0 {
			body.WriteString(",")
		}
		fmt.Fprintf(&body, `{"metadata":{"name":"app-%d"}}`, i)
	}
	body.WriteString("]}")
	c := serve(t, func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(body.String())) })
	names, err := ListApplications(context.Background(), c, nil, func(app map[string]any) string {
		return app["metadata"].(map[string]any)["name"].(string)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 500 {
		t.Fatalf("kept %d Applications; want 500", len(names))
	}
	for i, name := range names {
		if want := fmt.Sprintf("app-%d", i); name != want {
			t.Fatalf("item %d kept as %q; want %q", i, name, want)
		}
	}
}

// The list is decoded one Application at a time, by the decoder given
// (one that fails leaves that Application decoded whole); a list with no
// items is empty, not an error.
func TestTheListIsDecodedOneApplicationAtATime(t *testing.T) {
	body := `{"metadata":{"resourceVersion":"9"},"items":[{"metadata":{"name":"web"}},{"metadata":{"name":"odd"}}]}`
	c := serve(t, func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(body)) })
	var mu sync.Mutex
	var decoded []string
	slim := func(raw []byte) (map[string]any, error) {
		mu.Lock()
		defer mu.Unlock()
		decoded = append(decoded, string(raw))
		if strings.Contains(string(raw), "odd") {
			return nil, errors.New("not an Application's types")
		}
		return map[string]any{"slim": true}, nil
	}
	apps, err := applications(c, slim)
	if err != nil {
		t.Fatal(err)
	}
	if len(decoded) != 2 || len(apps) != 2 || apps[0]["slim"] != true || apps[1]["metadata"] == nil {
		t.Errorf("decoded %q into %v; want each item decoded by the decoder, the odd one whole", decoded, apps)
	}
	body = `{"metadata":{},"items":null}`
	if apps, err := applications(c, slim); err != nil || len(apps) != 0 {
		t.Errorf("a list without items: %v, %v", apps, err)
	}
}
