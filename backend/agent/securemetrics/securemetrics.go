// Package securemetrics serves an agent's /metrics as controller-runtime's
// secure metrics server does: over TLS, to a caller whose bearer token the
// API server authenticates (TokenReview) and authorizes to get the
// non-resource URL (SubjectAccessReview). The agent is the privileged
// writer of change requests; its metrics say what it may do and when.
package securemetrics

import (
	"context"
	"crypto/sha256"
	"net/http"
	"strings"
	"sync"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Guard lets through requests whose token may get their path.
type Guard struct {
	Client kubernetes.Interface
	// TTL is how long an answer is kept for a token (a minute by default).
	TTL time.Duration
	Now func() time.Time

	mu      sync.Mutex
	answers map[[32]byte]answer
}

type answer struct {
	status int // 0 when allowed
	why    string
	until  time.Time
}

// maxAnswers bounds the cache: a scrape every 30 s by a few Prometheus
// replicas needs a handful.
const maxAnswers = 256

// denialTTL bounds how long a refusal is kept.
const denialTTL = 10 * time.Second

// Wrap guards h.
func (g *Guard) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || strings.TrimSpace(token) == "" {
			http.Error(w, "Unauthorized: a bearer token is required (a ServiceAccount's bound to the driftdeck-metrics-reader ClusterRole)", http.StatusUnauthorized)
			return
		}
		a := g.decide(r.Context(), strings.TrimSpace(token), r.URL.Path)
		if a.status != 0 {
			http.Error(w, a.why, a.status)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func (g *Guard) now() time.Time {
	if g.Now != nil {
		return g.Now()
	}
	return time.Now()
}

// decide asks the API server about a token, or remembers its answer.
func (g *Guard) decide(ctx context.Context, token, path string) answer {
	key := sha256.Sum256([]byte(token + "\x00" + path))
	now := g.now()
	g.mu.Lock()
	if a, ok := g.answers[key]; ok && now.Before(a.until) {
		g.mu.Unlock()
		return a
	}
	g.mu.Unlock()
	a := g.ask(ctx, token, path)
	if a.status == http.StatusInternalServerError {
		return a // not kept: the API server may answer next time
	}
	ttl := g.TTL
	if ttl <= 0 {
		ttl = time.Minute
	}
	if a.status != 0 {
		ttl = min(ttl, denialTTL) // a grant just made is honoured soon
	}
	a.until = now.Add(ttl)
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.answers == nil || len(g.answers) >= maxAnswers {
		g.answers = map[[32]byte]answer{}
	}
	g.answers[key] = a
	return a
}

func (g *Guard) ask(ctx context.Context, token, path string) answer {
	tr, err := g.Client.AuthenticationV1().TokenReviews().Create(ctx, &authnv1.TokenReview{Spec: authnv1.TokenReviewSpec{Token: token}}, metav1.CreateOptions{})
	switch {
	case err != nil:
		return answer{status: http.StatusInternalServerError, why: "the token could not be reviewed: " + err.Error()}
	case !tr.Status.Authenticated:
		return answer{status: http.StatusUnauthorized, why: "Unauthorized: the API server does not know the token"}
	}
	u := tr.Status.User
	extra := map[string]authzv1.ExtraValue{}
	for k, v := range u.Extra {
		extra[k] = authzv1.ExtraValue(v)
	}
	sar, err := g.Client.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authzv1.SubjectAccessReview{Spec: authzv1.SubjectAccessReviewSpec{
		User: u.Username, UID: u.UID, Groups: u.Groups, Extra: extra,
		NonResourceAttributes: &authzv1.NonResourceAttributes{Path: path, Verb: "get"},
	}}, metav1.CreateOptions{})
	switch {
	case err != nil:
		return answer{status: http.StatusInternalServerError, why: "the access of " + u.Username + " could not be reviewed: " + err.Error()}
	case !sar.Status.Allowed:
		return answer{status: http.StatusForbidden, why: "Forbidden: " + u.Username + " may not get " + path + " (bind the driftdeck-metrics-reader ClusterRole)"}
	}
	return answer{}
}
