package securemetrics

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// The guard asks the API server once per token and path, keeps a grant a
// minute and a refusal ten seconds, and answers 401, 403 or the handler.
func TestTheGuardAsksTheAPIServerAndKeepsItsAnswer(t *testing.T) {
	cs := k8sfake.NewSimpleClientset()
	var reviews, grants atomic.Int32
	allowed := map[string]bool{"system:serviceaccount:monitoring:prometheus": true}
	cs.PrependReactor("create", "tokenreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		reviews.Add(1)
		tr := a.(k8stesting.CreateAction).GetObject().(*authnv1.TokenReview)
		switch tr.Spec.Token {
		case "prom":
			tr.Status = authnv1.TokenReviewStatus{Authenticated: true, User: authnv1.UserInfo{Username: "system:serviceaccount:monitoring:prometheus"}}
		case "dev":
			tr.Status = authnv1.TokenReviewStatus{Authenticated: true, User: authnv1.UserInfo{Username: "dev"}}
		}
		return true, tr, nil
	})
	cs.PrependReactor("create", "subjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		sar := a.(k8stesting.CreateAction).GetObject().(*authzv1.SubjectAccessReview)
		if sar.Spec.NonResourceAttributes == nil || sar.Spec.NonResourceAttributes.Path != "/metrics" || sar.Spec.NonResourceAttributes.Verb != "get" {
			t.Errorf("asked about %+v; want get /metrics", sar.Spec.NonResourceAttributes)
		}
		sar.Status.Allowed = allowed[sar.Spec.User]
		if sar.Status.Allowed {
			grants.Add(1)
		}
		return true, sar, nil
	})
	now := time.Date(2026, 12, 5, 3, 0, 0, 0, time.UTC)
	g := &Guard{Client: cs, Now: func() time.Time { return now }}
	h := g.Wrap(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("driftdeck_agent_ready 1\n")) }))
	get := func(token string) int {
		r := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	for _, c := range []struct {
		token string
		want  int
	}{{"", 401}, {"forged", 401}, {"dev", 403}, {"prom", 200}, {"prom", 200}} {
		if got := get(c.token); got != c.want {
			t.Errorf("token %q: %d; want %d", c.token, got, c.want)
		}
	}
	if n := reviews.Load(); n != 3 {
		t.Errorf("%d token reviews for three tokens, one asked twice; want 3", n)
	}
	allowed["dev"] = true // a grant made meanwhile
	now = now.Add(11 * time.Second)
	if got := get("dev"); got != 200 {
		t.Errorf("a refusal is kept past ten seconds: %d", got)
	}
	if get("prom"); grants.Load() != 2 {
		t.Errorf("a grant was asked again within its minute: %d grants", grants.Load())
	}
}
