package testcluster

import (
	"bytes"
	"encoding/pem"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// Fault is what a Proxy does to one request.
type Fault int

const (
	// Pass forwards the request and its answer.
	Pass Fault = iota
	// DropBeforeForward closes the client's connection without forwarding
	// the request: the write never reaches the cluster.
	DropBeforeForward
	// DropAfterForward forwards the request, lets the apiserver answer, and
	// closes the client's connection before a byte of the answer reaches it:
	// the write happened, the client cannot know.
	DropAfterForward
	// ExpireWatch answers a watch with the ERROR event an apiserver sends
	// when the watch's resource version is too old (410 Gone, Expired).
	ExpireWatch
)

// Proxy is an HTTPS proxy in front of the apiserver that a test can slow
// down, cut, or have drop chosen requests. It forwards as the administrator:
// its clients need no credentials of their own.
type Proxy struct {
	srv      *httptest.Server
	upstream *httputil.ReverseProxy
	rt       http.RoundTripper
	target   *url.URL

	mu      sync.Mutex
	latency time.Duration
	fault   func(*http.Request) Fault
}

var quiet = log.New(io.Discard, "", 0)

// Proxy starts a fault proxy in front of c's apiserver, closed when the test
// ends.
func (c *Cluster) Proxy(t testing.TB) *Proxy {
	t.Helper()
	rt, err := rest.TransportFor(c.cfg)
	if err != nil {
		t.Fatal(err)
	}
	target, err := url.Parse(c.cfg.Host)
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{rt: rt, target: target}
	p.upstream = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = target.Host
			r.Out.Header.Del("Authorization") // the proxy's token; upstream it is the administrator
		},
		Transport:     rt,
		FlushInterval: -1,    // watches stream
		ErrorLog:      quiet, // the faults make errors on purpose
	}
	p.srv = httptest.NewUnstartedServer(http.HandlerFunc(p.serve))
	p.srv.Config.ErrorLog = quiet
	p.srv.StartTLS()
	t.Cleanup(p.srv.Close)
	return p
}

// Config connects to the cluster through the proxy. Its token means
// nothing (the proxy drops it) but keeps clients from asking for a password.
func (p *Proxy) Config() *rest.Config {
	cert := p.srv.Certificate()
	return &rest.Config{
		Host:        p.srv.URL,
		BearerToken: "through-the-fault-proxy",
		TLSClientConfig: rest.TLSClientConfig{
			CAData: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}),
		},
	}
}

// SetLatency delays every request by d before it is forwarded (0: none).
func (p *Proxy) SetLatency(d time.Duration) {
	p.mu.Lock()
	p.latency = d
	p.mu.Unlock()
}

// SetFault chooses a fault per request; nil passes everything.
func (p *Proxy) SetFault(f func(*http.Request) Fault) {
	p.mu.Lock()
	p.fault = f
	p.mu.Unlock()
}

// CutConnections closes every connection the proxy's clients hold, open
// watches included; new ones are accepted.
func (p *Proxy) CutConnections() { p.srv.CloseClientConnections() }

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	latency, choose := p.latency, p.fault
	p.mu.Unlock()
	if latency > 0 {
		select {
		case <-time.After(latency):
		case <-r.Context().Done():
			return
		}
	}
	fault := Pass
	if choose != nil {
		fault = choose(r)
	}
	switch fault {
	case DropBeforeForward:
		panic(http.ErrAbortHandler) // the server closes the connection
	case DropAfterForward:
		p.forwardAndDrop(r)
	case ExpireWatch:
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},`+
			`"status":"Failure","message":"too old resource version: 1 (2)","reason":"Expired","code":410}}`+"\n")
	default:
		p.upstream.ServeHTTP(w, r)
	}
}

// forwardAndDrop sends r upstream, waits for the whole answer, then closes
// the client's connection without sending it.
func (p *Proxy) forwardAndDrop(r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	out, err := http.NewRequestWithContext(r.Context(), r.Method, p.target.JoinPath(r.URL.Path).String()+"?"+r.URL.RawQuery, bytes.NewReader(body))
	if err == nil {
		out.Header = r.Header.Clone()
		out.Header.Del("Authorization")
		if resp, err := p.rt.RoundTrip(out); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	panic(http.ErrAbortHandler)
}
