package logs

import (
	"context"
	"fmt"
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
	"k8s.io/client-go/kubernetes"
)

// fakeKubelet answers GET /containerLogs/<ns>/<pod>/<container> as a
// kubelet does, over HTTPS. A Node registered with its address and port
// makes the real kube-apiserver proxy pods/log to it: envtest runs no
// kubelet, so this is the log source behind the apiserver's real proxy path.
type fakeKubelet struct {
	srv *httptest.Server

	mu       sync.Mutex
	logs     map[string]string      // "<ns>/<pod>/<container>" -> the whole log
	follows  map[string]chan string // lines written while following
	requests []logRequest
}

type logRequest struct {
	Namespace, Pod, Container string
	Query                     url.Values
}

func startFakeKubelet(t *testing.T) *fakeKubelet {
	k := &fakeKubelet{logs: map[string]string{}, follows: map[string]chan string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /containerLogs/{ns}/{pod}/{container}", k.serve)
	k.srv = httptest.NewTLSServer(mux)
	t.Cleanup(k.srv.Close)
	return k
}

func (k *fakeKubelet) port() int32 {
	u, _ := url.Parse(k.srv.URL)
	p, _ := strconv.Atoi(u.Port())
	return int32(p)
}

func (k *fakeKubelet) serve(w http.ResponseWriter, r *http.Request) {
	req := logRequest{r.PathValue("ns"), r.PathValue("pod"), r.PathValue("container"), r.URL.Query()}
	key := req.Namespace + "/" + req.Pod + "/" + req.Container
	k.mu.Lock()
	k.requests = append(k.requests, req)
	text, ok := k.logs[key]
	follow := k.follows[key]
	k.mu.Unlock()
	if !ok {
		http.Error(w, "container not found", http.StatusNotFound)
		return
	}
	_, _ = w.Write([]byte(text))
	if req.Query.Get("follow") != "true" || follow == nil {
		return
	}
	w.(http.Flusher).Flush()
	for {
		select {
		case <-r.Context().Done():
			return
		case line := <-follow:
			_, _ = w.Write([]byte(line + "\n"))
			w.(http.Flusher).Flush()
		}
	}
}

// setLog is what a container has logged so far; follow, if not nil, takes
// the lines it logs next.
func (k *fakeKubelet) setLog(ns, pod, container, text string, follow chan string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	key := ns + "/" + pod + "/" + container
	k.logs[key] = text
	k.follows[key] = follow
}

func (k *fakeKubelet) lastRequest(ns, pod string) (logRequest, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for i := len(k.requests) - 1; i >= 0; i-- {
		if r := k.requests[i]; r.Namespace == ns && r.Pod == pod {
			return r, true
		}
	}
	return logRequest{}, false
}

// registerNode makes a Node whose kubelet is the fake one: the apiserver
// reaches it at status.addresses' InternalIP and daemonEndpoints' port.
// With no --kubelet-certificate-authority the apiserver does not verify the
// kubelet's serving certificate, and the fake asks for no client one.
func registerNode(t *testing.T, kc kubernetes.Interface, name string, k *fakeKubelet) {
	ctx := context.Background()
	node, err := kc.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("registering node %s: %v", name, err)
	}
	t.Cleanup(func() { _ = kc.CoreV1().Nodes().Delete(context.Background(), name, metav1.DeleteOptions{}) })
	node.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}}
	node.Status.DaemonEndpoints.KubeletEndpoint.Port = k.port()
	if _, err := kc.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("pointing node %s at the fake kubelet: %v", name, err)
	}
}

// collect streams into a channel, so a test can wait for each line.
func collect(ctx context.Context, s *Service, p PodRef, o Options) (<-chan Line, <-chan error) {
	lines, done := make(chan Line, 1024), make(chan error, 1)
	go func() {
		done <- s.Stream(ctx, p, o, func(l Line) { lines <- l })
		close(lines)
	}()
	return lines, done
}

// next waits for the next line of the pod's own (not a notice).
func next(t *testing.T, lines <-chan Line) string {
	t.Helper()
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("the stream ended early")
			}
			if !l.Notice {
				return l.Text
			}
		case <-time.After(30 * time.Second):
			t.Fatal("no line within 30s")
		}
	}
}

func all(t *testing.T, lines <-chan Line, done <-chan error) []Line {
	t.Helper()
	var out []Line
	for l := range lines {
		out = append(out, l)
	}
	if err := <-done; err != nil {
		t.Fatalf("stream: %v", err)
	}
	return out
}

func texts(ls []Line) string {
	var b strings.Builder
	for _, l := range ls {
		fmt.Fprintln(&b, l.Text)
	}
	return b.String()
}
