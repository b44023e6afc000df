package fleet

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// While a context cannot be reached it is retried, and every try starts
// watches beside discovery: the header still says since when it has been
// disconnected and why, in the same words, not the last watch's.
func TestAContextNothingAnswersKeepsWhenAndWhyAcrossRetries(t *testing.T) {
	var asked atomic.Int32
	cfg := &rest.Config{Host: testcluster.RefusedURL(t)}
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if isDiscovery(r.URL.Path) {
				asked.Add(1)
			}
			return rt.RoundTrip(r)
		})
	}
	c, err := kube.NewCluster("gone", cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := New(Options{})
	f.AddRetrying(ctx, c, "")

	gvs := map[schema.GroupVersion]bool{}
	for _, r := range watched {
		gvs[r.GroupVersion()] = true
	}
	perTry := int32(len(gvs))
	waitAsked := func(tries int32) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); asked.Load() < tries*perTry; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d discovery requests in 30 s, want %d tries of %d", asked.Load(), tries, perTry)
			}
		}
	}
	waitAsked(1)
	time.Sleep(200 * time.Millisecond) // the first try's status is written
	first := f.Store.Status()[0]
	if first.Connected || !strings.Contains(first.Error, "discovering") {
		t.Fatalf("after the first try: %+v, want disconnected with discovery's error", first)
	}
	waitAsked(3) // tries at about 0, 1 and 3 s
	time.Sleep(200 * time.Millisecond)
	now := f.Store.Status()[0]
	if !now.Since.Equal(first.Since) {
		t.Errorf("disconnected since %v after the first try, %v after the third", first.Since, now.Since)
	}
	if now.Error != first.Error {
		t.Errorf("the message changed between tries:\nfirst %s\nthen  %s", first.Error, now.Error)
	}
}
