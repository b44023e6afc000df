package kube

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"
)

// PodForward reaches a port of a ready pod picked by a label selector
// through the Kubernetes API's port-forward, as kubectl port-forward and
// argocd --port-forward do, with one stream per connection: nothing
// listens on a local port. When the pod goes (a restart, a rollout), the
// next connection picks a ready pod again.
type PodForward struct {
	cluster             *Cluster
	namespace, selector string
	port                int

	mu   sync.Mutex
	conn httpstream.Connection
	pod  string

	requests atomic.Int64
}

// ForwardToPod is a port-forward to port of a ready pod matching selector
// in namespace; nothing is dialled before the first connection.
func (c *Cluster) ForwardToPod(namespace, selector string, port int) *PodForward {
	return &PodForward{cluster: c, namespace: namespace, selector: selector, port: port}
}

// String names what is forwarded to, for messages.
func (f *PodForward) String() string {
	return fmt.Sprintf("port-forward to port %d of a pod %s in namespace %s of context %s", f.port, f.selector, f.namespace, f.cluster.Context)
}

// DialContext opens a connection to the pod's port; network and address
// are the caller's (an HTTP transport's) and not used.
func (f *PodForward) DialContext(ctx context.Context, _, _ string) (net.Conn, error) {
	conn, pod, err := f.connection(ctx)
	if err != nil {
		return nil, err
	}
	headers := http.Header{}
	headers.Set(corev1.StreamType, corev1.StreamTypeError)
	headers.Set(corev1.PortHeader, strconv.Itoa(f.port))
	headers.Set(corev1.PortForwardRequestIDHeader, strconv.FormatInt(f.requests.Add(1), 10))
	errStream, err := conn.CreateStream(headers)
	if err != nil {
		f.drop(conn)
		return nil, f.failed(pod, err)
	}
	_ = errStream.Close() // written by the kubelet only
	headers.Set(corev1.StreamType, corev1.StreamTypeData)
	data, err := conn.CreateStream(headers)
	if err != nil {
		conn.RemoveStreams(errStream)
		f.drop(conn)
		return nil, f.failed(pod, err)
	}
	c := &forwardedConn{conn: conn, data: data, errStream: errStream, pod: pod, said: make(chan struct{}), refused: func() { f.drop(conn) }}
	go c.readError()
	return c, nil
}

func (f *PodForward) failed(pod string, err error) error {
	return fmt.Errorf("%s (pod %s): %w", f, pod, err)
}

// connection is the port-forward connection to a ready pod, dialled anew
// when the last one closed.
func (f *PodForward) connection(ctx context.Context) (httpstream.Connection, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.conn != nil {
		select {
		case <-f.conn.CloseChan():
			f.conn = nil
		default:
			return f.conn, f.pod, nil
		}
	}
	pod, err := f.readyPod(ctx)
	if err != nil {
		return nil, "", err
	}
	conn, err := f.dial(ctx, pod)
	if err != nil {
		return nil, "", f.failed(pod, err)
	}
	f.conn, f.pod = conn, pod
	return conn, pod, nil
}

// drop forgets conn, when it is still the one kept, so that the next
// connection picks a ready pod again: the pod refused or went.
func (f *PodForward) drop(conn httpstream.Connection) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.conn == conn {
		f.conn = nil
		_ = conn.Close()
	}
}

// readyPod is the first pod matching the selector that runs and is ready,
// as argocd --port-forward picks it.
func (f *PodForward) readyPod(ctx context.Context) (string, error) {
	pods, err := f.cluster.Kube.CoreV1().Pods(f.namespace).List(ctx, metav1.ListOptions{LabelSelector: f.selector})
	if err != nil {
		return "", fmt.Errorf("%s: %w", f, err)
	}
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodRunning && podReady(&p) {
			return p.Name, nil
		}
	}
	return "", fmt.Errorf("%s: no such pod is running and ready (%d found); is it installed in that namespace?", f, len(pods.Items))
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// dial opens the pod's port-forward connection: over WebSockets where the
// API server speaks them, else over SPDY (kubectl's order); bounded by ctx.
func (f *PodForward) dial(ctx context.Context, pod string) (httpstream.Connection, error) {
	cfg := f.cluster.Config
	url := f.cluster.Kube.CoreV1().RESTClient().Post().Resource("pods").Namespace(f.namespace).Name(pod).SubResource("portforward").URL()
	transport, upgrader, err := spdy.RoundTripperFor(cfg)
	if err != nil {
		return nil, err
	}
	var dialer httpstream.Dialer = spdy.NewDialer(upgrader, &http.Client{Transport: transport}, http.MethodPost, url)
	if tunnel, err := portforward.NewSPDYOverWebsocketDialer(url, cfg); err == nil {
		dialer = portforward.NewFallbackDialer(tunnel, dialer, func(err error) bool {
			return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
		})
	}
	type dialed struct {
		conn httpstream.Connection
		err  error
	}
	done := make(chan dialed, 1)
	go func() {
		conn, _, err := dialer.Dial(portforward.PortForwardProtocolV1Name)
		done <- dialed{conn, err}
	}()
	select {
	case d := <-done:
		return d.conn, d.err
	case <-ctx.Done():
		go func() { // a connection made after all is not leaked
			if d := <-done; d.conn != nil {
				_ = d.conn.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

// forwardedConn is one connection to the pod's port: its data stream, and
// the error stream on which the kubelet says why the port could not be
// reached.
type forwardedConn struct {
	conn            httpstream.Connection
	data, errStream httpstream.Stream
	pod             string
	refused         func() // the kubelet could not reach the pod's port

	said    chan struct{} // closed once the error stream ended
	message []byte
	once    sync.Once
}

func (c *forwardedConn) readError() {
	c.message, _ = io.ReadAll(io.LimitReader(c.errStream, 4096))
	close(c.said)
}

// Read returns what the pod's port sent; at its end, the kubelet's error,
// if it gave one.
func (c *forwardedConn) Read(p []byte) (int, error) {
	n, err := c.data.Read(p)
	if err == io.EOF {
		select {
		case <-c.said:
			if len(c.message) > 0 {
				c.refused()
				return n, fmt.Errorf("port-forward to pod %s: %s", c.pod, c.message)
			}
		case <-time.After(time.Second):
		}
	}
	return n, err
}

func (c *forwardedConn) Write(p []byte) (int, error) { return c.data.Write(p) }

func (c *forwardedConn) Close() error {
	c.once.Do(func() {
		_ = c.data.Reset()
		c.conn.RemoveStreams(c.data, c.errStream)
	})
	return nil
}

func (c *forwardedConn) LocalAddr() net.Addr  { return forwardAddr("driftdeck") }
func (c *forwardedConn) RemoteAddr() net.Addr { return forwardAddr("pod/" + c.pod) }

// Deadlines are not kept: an HTTP client bounds its requests by their
// contexts, which close the connection.
func (c *forwardedConn) SetDeadline(time.Time) error      { return nil }
func (c *forwardedConn) SetReadDeadline(time.Time) error  { return nil }
func (c *forwardedConn) SetWriteDeadline(time.Time) error { return nil }

type forwardAddr string

func (a forwardAddr) Network() string { return "port-forward" }
func (a forwardAddr) String() string  { return string(a) }
