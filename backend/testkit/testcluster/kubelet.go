package testcluster

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FakeKubelet answers GET /containerLogs/<ns>/<pod>/<container> as a
// kubelet does, over HTTPS, for the pods on its Node. envtest runs no
// kubelet: with the Node's status.addresses (InternalIP 127.0.0.1) and
// daemonEndpoints.kubeletEndpoint.Port pointing here, the real
// kube-apiserver proxies pods/log to it. The apiserver does not verify the
// kubelet's serving certificate when it has no --kubelet-certificate-authority
// (envtest sets none), and this server asks for no client certificate.
type FakeKubelet struct {
	// Node is the name of the Node it serves; put pods there with
	// spec.nodeName.
	Node string
	srv  *httptest.Server

	mu       sync.Mutex
	logs     map[string]string
	written  map[string]time.Time // when a log's lines were written; zero: now
	follows  map[string]chan string
	requests []KubeletRequest
	// ports maps "<ns>/<pod>/<port>" to the address a port-forward to it
	// reaches.
	ports map[string]string
}

// KubeletRequest is one log request as the kubelet got it from the
// apiserver: the path's names and the query (follow, previous,
// sinceSeconds, tailLines, timestamps, ...).
type KubeletRequest struct {
	Namespace, Pod, Container string
	Query                     url.Values
}

// FakeKubelet starts a kubelet-like log server and registers its Node;
// both go when the test ends.
func (c *Cluster) FakeKubelet(t testing.TB) *FakeKubelet {
	t.Helper()
	k := &FakeKubelet{logs: map[string]string{}, written: map[string]time.Time{}, follows: map[string]chan string{}, ports: map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /containerLogs/{ns}/{pod}/{container}", k.serve)
	mux.HandleFunc("/portForward/{ns}/{pod}", k.portForward)
	k.srv = httptest.NewTLSServer(mux)
	t.Cleanup(k.srv.Close)
	u, _ := url.Parse(k.srv.URL)
	port, _ := strconv.Atoi(u.Port())

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	kc := c.Kube(t)
	node, err := kc.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{GenerateName: "fake-kubelet-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("registering the fake kubelet's node: %v", err)
	}
	k.Node = node.Name
	t.Cleanup(func() { _ = kc.CoreV1().Nodes().Delete(context.Background(), node.Name, metav1.DeleteOptions{}) })
	node.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}}
	node.Status.DaemonEndpoints.KubeletEndpoint.Port = int32(port)
	if _, err := kc.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("pointing node %s at the fake kubelet: %v", node.Name, err)
	}
	return k
}

func (k *FakeKubelet) serve(w http.ResponseWriter, r *http.Request) {
	req := KubeletRequest{r.PathValue("ns"), r.PathValue("pod"), r.PathValue("container"), r.URL.Query()}
	key := req.Namespace + "/" + req.Pod + "/" + req.Container
	k.mu.Lock()
	k.requests = append(k.requests, req)
	text, ok := k.logs[key]
	written := k.written[key]
	follow := k.follows[key]
	k.mu.Unlock()
	if !ok {
		http.Error(w, "container not found", http.StatusNotFound)
		return
	}
	stamped := req.Query.Get("timestamps") == "true"
	if n, err := strconv.Atoi(req.Query.Get("tailLines")); err == nil {
		text = tail(text, n)
	}
	_, _ = w.Write([]byte(stamp(text, stamped, written)))
	if req.Query.Get("follow") != "true" || follow == nil {
		return
	}
	w.(http.Flusher).Flush()
	for {
		select {
		case <-r.Context().Done():
			return
		case line := <-follow:
			_, _ = w.Write([]byte(stamp(line+"\n", stamped, time.Time{})))
			w.(http.Flusher).Flush()
		}
	}
}

// tail is the last n lines of text, as tailLines asks.
func tail(text string, n int) string {
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines[max(len(lines)-n, 0):], "")
}

// stamp prefixes each line with the time it was written (zero: now), as
// a kubelet asked for timestamps does (RFC 3339 with nanoseconds, then a
// space).
func stamp(text string, stamped bool, written time.Time) string {
	if !stamped || text == "" {
		return text
	}
	if written.IsZero() {
		written = time.Now()
	}
	now := written.UTC().Format(time.RFC3339Nano) + " "
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = now + l
		}
	}
	return strings.Join(lines, "")
}

// SetLog is what a container has logged so far; when follow is not nil, a
// following request then writes each line sent on it, as it comes.
func (k *FakeKubelet) SetLog(ns, pod, container, text string, follow chan string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	key := ns + "/" + pod + "/" + container
	k.logs[key] = text
	delete(k.written, key)
	k.follows[key] = follow
}

// SetLogWrittenAt is SetLog for lines all written at one time, which a
// request for timestamps gets.
func (k *FakeKubelet) SetLogWrittenAt(ns, pod, container, text string, at time.Time) {
	k.SetLog(ns, pod, container, text, nil)
	k.mu.Lock()
	defer k.mu.Unlock()
	k.written[ns+"/"+pod+"/"+container] = at
}

// LastRequest is the newest log request for a pod.
func (k *FakeKubelet) LastRequest(ns, pod string) (KubeletRequest, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for i := len(k.requests) - 1; i >= 0; i-- {
		if r := k.requests[i]; r.Namespace == ns && r.Pod == pod {
			return r, true
		}
	}
	return KubeletRequest{}, false
}
