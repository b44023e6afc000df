package kube

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// A LIST that the API server cuts at its request timeout, as it cuts a very
// large one on a busy server, is listed again in pages, each of which comes
// in time: the watch gets every object, and says why it pages. The real API
// server cuts it: its LISTs are given a two-second timeout and come through
// a link of 1 MB/s with small buffers, so the whole list (about 11 MB, which
// does not compress) takes longer and a page of 500 (under 1 MB) does not.
func TestClusterACutListIsListedAgainInPages(t *testing.T) {
	tc := testcluster.Shared(t)
	ns := tc.Namespace(t)
	const n = 6000
	createConfigMaps(t, tc, ns, n, 1500)

	cfg := tc.Config()
	server, err := url.Parse(cfg.Host)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Host = "https://" + slowLink(t, server.Host, 1<<20)
	cfg.TLSClientConfig.ServerName = server.Hostname()
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return listTimeout{rt, "2s"} })
	c, err := NewCluster("test", cfg, ns)
	if err != nil {
		t.Fatal(err)
	}

	listed := make(chan []string, 4)
	health := &recordedHealth{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go Watch(ctx, c, configMaps, ns, Feed[string]{
		Convert: func(obj map[string]any) string { return (&unstructured.Unstructured{Object: obj}).GetName() },
		Put:     func(string) {},
		Delete:  func(string, string) {},
		Replace: func(names []string) { listed <- names },
	}, health)

	select {
	case names := <-listed:
		if len(names) != n {
			t.Fatalf("the list held %d ConfigMaps, want %d", len(names), n)
		}
	case <-time.After(2 * time.Minute):
		t.Fatalf("no whole list within 2 minutes; the watch heard: %v", health.errors())
	}
	var said bool
	for _, err := range health.errors() {
		var cut *listCutError
		said = said || errors.As(err, &cut) && strings.Contains(err.Error(), "listing it in pages of 500")
	}
	if !said {
		t.Fatalf("the watch never said the list broke off and is paged; it heard: %v", health.errors())
	}
}

// createConfigMaps makes n ConfigMaps, each holding size bytes that do not
// compress (the API server compresses large answers).
func createConfigMaps(t *testing.T, tc *testcluster.Cluster, ns string, n, size int) {
	t.Helper()
	kc := tc.Kube(t)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < n; i += 8 {
				noise := make([]byte, size*3/4)
				_, _ = rand.Read(noise)
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%04d", i)},
					Data: map[string]string{"v": base64.StdEncoding.EncodeToString(noise)}}
				if _, err := kc.CoreV1().ConfigMaps(ns).Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
}

// listTimeout asks the API server to give up on each LIST after timeout, as
// its --request-timeout does after a minute.
type listTimeout struct {
	rt      http.RoundTripper
	timeout string
}

func (l listTimeout) RoundTrip(r *http.Request) (*http.Response, error) {
	if q := r.URL.Query(); r.Method == http.MethodGet && q.Get("watch") == "" {
		q.Set("timeout", l.timeout)
		u := *r.URL
		u.RawQuery = q.Encode()
		r = r.Clone(r.Context())
		r.URL = &u
	}
	return l.rt.RoundTrip(r)
}

// slowLink forwards TCP to target, the answers at most perSecond bytes a
// second, and returns its address. Its own receive buffer is small, so
// that what the server has sent but the link not yet passed on is mostly
// the server's send buffer (a few MB on loopback).
func slowLink(t *testing.T, target string, perSecond int) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			_ = up.(*net.TCPConn).SetReadBuffer(64 << 10)
			go func() { _, _ = io.Copy(up, c); up.Close() }()
			go func() { throttle(c, up, perSecond); c.Close() }()
		}
	}()
	return ln.Addr().String()
}

// throttle copies from to to in chunks of a tenth of perSecond, one each
// tenth of a second.
func throttle(to io.Writer, from io.Reader, perSecond int) {
	buf := make([]byte, perSecond/10)
	for {
		n, err := from.Read(buf)
		if n > 0 {
			if _, werr := to.Write(buf[:n]); werr != nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		if err != nil {
			return
		}
	}
}

// recordedHealth keeps what a watch reports.
type recordedHealth struct {
	mu   sync.Mutex
	errs []error
}

func (h *recordedHealth) Connected() {}
func (h *recordedHealth) Event()     {}
func (h *recordedHealth) Disconnected(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.errs = append(h.errs, err)
}

func (h *recordedHealth) errors() []error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]error(nil), h.errs...)
}
