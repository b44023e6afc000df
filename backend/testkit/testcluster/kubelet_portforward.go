package testcluster

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/apimachinery/pkg/util/httpstream/spdy"
)

// RunPod creates a pod on the kubelet's Node, running and ready, whose
// port forwards (Forward) reach real servers; it goes when the test ends.
func (k *FakeKubelet) RunPod(t testing.TB, c *Cluster, ns, name string, labels map[string]string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	kc := c.Kube(t)
	p, err := kc.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: corev1.PodSpec{NodeName: k.Node, AutomountServiceAccountToken: new(bool),
			Containers: []corev1.Container{{Name: "main", Image: "example.invalid/main"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating pod %s/%s: %v", ns, name, err)
	}
	t.Cleanup(func() {
		_ = kc.CoreV1().Pods(ns).Delete(context.Background(), name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)})
	})
	p.Status = corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}
	if _, err := kc.CoreV1().Pods(ns).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("marking pod %s/%s running: %v", ns, name, err)
	}
}

// Forward makes a port-forward to port of pod ns/name reach addr, as the
// kubelet reaches the pod's port; "" ends it (the pod is gone).
func (k *FakeKubelet) Forward(ns, pod string, port int, addr string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.ports[fmt.Sprintf("%s/%s/%d", ns, pod, port)] = addr
}

// portForward serves the kubelet's port-forward protocol (SPDY, as the
// API server speaks it to a kubelet): per request id, an error stream and
// a data stream, the data piped to the pod's port.
func (k *FakeKubelet) portForward(w http.ResponseWriter, r *http.Request) {
	ns, pod := r.PathValue("ns"), r.PathValue("pod")
	if _, err := httpstream.Handshake(r, w, []string{"portforward.k8s.io"}); err != nil {
		return // Handshake answered
	}
	streams := make(chan httpstream.Stream, 8)
	conn := spdy.NewResponseUpgrader().UpgradeResponse(w, r, func(s httpstream.Stream, replySent <-chan struct{}) error {
		streams <- s
		return nil
	})
	if conn == nil {
		return
	}
	defer conn.Close()
	var mu sync.Mutex
	errStreams := map[string]httpstream.Stream{}
	for {
		select {
		case <-conn.CloseChan():
			return
		case s := <-streams:
			id := s.Headers().Get(corev1.PortForwardRequestIDHeader)
			if s.Headers().Get(corev1.StreamType) == corev1.StreamTypeError {
				mu.Lock()
				errStreams[id] = s
				mu.Unlock()
				continue
			}
			key := ns + "/" + pod + "/" + s.Headers().Get(corev1.PortHeader)
			go func() {
				defer s.Close()
				k.mu.Lock()
				addr := k.ports[key]
				k.mu.Unlock()
				var target net.Conn
				err := fmt.Errorf("no port %s", key)
				if addr != "" {
					target, err = net.Dial("tcp", addr)
				}
				mu.Lock()
				errStream := errStreams[id]
				mu.Unlock()
				if err != nil {
					if errStream != nil {
						_, _ = fmt.Fprintf(errStream, "error forwarding %s: %v", key, err)
						_ = errStream.Close()
					}
					return
				}
				defer target.Close()
				done := make(chan struct{}, 2)
				go func() { _, _ = io.Copy(target, s); done <- struct{}{} }()
				go func() { _, _ = io.Copy(s, target); done <- struct{}{} }()
				<-done
				if errStream != nil {
					_ = errStream.Close()
				}
			}()
		}
	}
}
