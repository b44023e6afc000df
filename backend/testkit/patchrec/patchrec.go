// Package patchrec records the PATCH requests a client sends, byte for
// byte, so that a test can hold the bytes written against the plan shown.
package patchrec

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"

	"k8s.io/client-go/rest"
)

// Sent is one PATCH request as it left for the API server.
type Sent struct {
	Path string
	Body []byte
}

// Recorder records the PATCH requests that go through it.
type Recorder struct {
	next http.RoundTripper
	mu   sync.Mutex
	sent []Sent
}

// On wraps cfg's transport with a new recorder.
func On(cfg *rest.Config) *Recorder {
	r := &Recorder{}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { r.next = rt; return r })
	return r
}

func (r *Recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPatch && req.Body != nil {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		r.mu.Lock()
		r.sent = append(r.sent, Sent{Path: req.URL.Path, Body: body})
		r.mu.Unlock()
	}
	return r.next.RoundTrip(req)
}

// Take returns the patches sent since the last Take.
func (r *Recorder) Take() []Sent {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.sent
	r.sent = nil
	return out
}

// To are the patches sent so far to objects whose path ends with suffix.
func (r *Recorder) To(suffix string) []Sent {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Sent
	for _, p := range r.sent {
		if strings.HasSuffix(p.Path, suffix) {
			out = append(out, p)
		}
	}
	return out
}
