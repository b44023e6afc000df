package logs

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

const plantedSecret = "pl4nted-db-password-91c3"

// podWithSecret is a pod on node that reads the Secret db-creds through
// its env, as an app reads its database password.
func podWithSecret(ns, name, node string, labels map[string]string, containers ...string) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Spec:       corev1.PodSpec{NodeName: node},
	}
	for _, c := range containers {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: c, Image: "example.invalid/app:1",
			Env: []corev1.EnvVar{{Name: "DB_PASSWORD", ValueFrom: &corev1.EnvVarSource{
				SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "db-creds"}, Key: "password"}}}},
		})
	}
	return p
}

// logFixture is a namespace with the Secret db-creds and a Node whose
// kubelet is fake.
type logFixture struct {
	ns, node string
	kc       *testcluster.FakeKubelet
}

func newLogFixture(t *testing.T, c *testcluster.Cluster) (*logFixture, *Service) {
	ns := c.Namespace(t)
	k := c.FakeKubelet(t)
	_, err := c.Kube(t).CoreV1().Secrets(ns).Create(context.Background(), &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "db-creds"},
		StringData: map[string]string{"password": plantedSecret},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kube.NewCluster("test", c.Config(), ns)
	if err != nil {
		t.Fatal(err)
	}
	return &logFixture{ns: ns, node: k.Node, kc: k}, &Service{Cluster: func(string) (*kube.Cluster, bool) { return cl, true }}
}

func (f *logFixture) createPod(t *testing.T, c *testcluster.Cluster, p *corev1.Pod) PodRef {
	t.Helper()
	if _, err := c.Kube(t).CoreV1().Pods(f.ns).Create(context.Background(), p, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating pod %s: %v", p.Name, err)
	}
	return PodRef{Context: "test", Namespace: f.ns, Name: p.Name}
}

// The log source here is a kubelet-like HTTPS server behind the real
// kube-apiserver's pods/log proxy path (envtest has no kubelet).
func TestClusterLogsStreamThroughTheAPIServerFromTheKubelet(t *testing.T) {
	c := testcluster.Shared(t)
	f, s := newLogFixture(t, c)
	ref := f.createPod(t, c, podWithSecret(f.ns, "web-0", f.node, nil, "app", "sidecar"))

	t.Run("options reach the kubelet, escape sequences shown, the Secret masked", func(t *testing.T) {
		f.kc.SetLog(f.ns, ref.Name, "sidecar", strings.Join([]string{
			"connecting",
			"\x1b]52;c;cHduZWQ=\x07clipboard \x1b[31mred\x1b[0m \x1b]0;retitled\x07",
			"using password " + plantedSecret + " for db",
		}, "\n")+"\n", nil)
		lines, done := collect(context.Background(), s, ref, Options{Container: "sidecar", Previous: true, Since: 10 * time.Minute, Tail: 50, Timestamps: true})
		got := texts(all(t, lines, done))
		req, ok := f.kc.LastRequest(f.ns, ref.Name)
		if !ok {
			t.Fatal("the kubelet got no request")
		}
		q := req.Query
		if req.Container != "sidecar" || q.Get("previous") != "true" || q.Get("sinceSeconds") != "600" || q.Get("tailLines") != "50" || q.Get("timestamps") != "true" || q.Has("follow") {
			t.Errorf("the kubelet was asked for container %q with %v", req.Container, q)
		}
		if strings.ContainsAny(got, "\x1b\x07") || !strings.Contains(got, `\x1b]52;c;cHduZWQ=\x07clipboard`) || !strings.Contains(got, `\x1b]0;retitled`) {
			t.Errorf("escape sequences must be shown, not sent:\n%s", got)
		}
		if strings.Contains(got, plantedSecret) || !strings.Contains(got, "using password "+Masked+" for db") {
			t.Errorf("the planted Secret value reached the output:\n%s", got)
		}
	})

	t.Run("follow delivers each line as the kubelet writes it", func(t *testing.T) {
		more := make(chan string)
		f.kc.SetLog(f.ns, ref.Name, "app", "booted\n", more)
		ctx, cancel := context.WithCancel(context.Background())
		lines, done := collect(ctx, s, ref, Options{Follow: true, Tail: -1})
		if l := next(t, lines); l != "booted" {
			t.Fatalf("first line %q", l)
		}
		for i := range 3 {
			more <- fmt.Sprintf("request %d served", i) // blocks until the kubelet writes it
			if l := next(t, lines); l != fmt.Sprintf("request %d served", i) {
				t.Fatalf("line %d: %q", i, l)
			}
		}
		more <- "db password " + plantedSecret
		if l := next(t, lines); strings.Contains(l, plantedSecret) {
			t.Fatalf("a followed line shows the Secret: %q", l)
		}
		if req, _ := f.kc.LastRequest(f.ns, ref.Name); req.Container != "app" || req.Query.Get("follow") != "true" || req.Query.Has("tailLines") {
			t.Errorf("following asked the kubelet for %q with %v (app is the default container)", req.Container, req.Query)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("closing a followed stream is no error: %v", err)
		}
	})

	t.Run("a log larger than the buffer keeps its newest lines and counts the rest", func(t *testing.T) {
		var b strings.Builder
		const n = 20000
		for i := range n {
			fmt.Fprintf(&b, "%06d %s\n", i, strings.Repeat("z", 120))
		}
		f.kc.SetLog(f.ns, ref.Name, "app", b.String(), nil)
		buf := NewBuffer(256 << 10)
		if err := s.Stream(context.Background(), ref, Options{Tail: -1}, buf.Add); err != nil {
			t.Fatal(err)
		}
		if buf.Bytes() > 256<<10 || buf.Dropped() == 0 || buf.Dropped()+buf.Len() != n {
			t.Fatalf("buffer holds %d bytes, %d lines, dropped %d of %d", buf.Bytes(), buf.Len(), buf.Dropped(), n)
		}
		if last := buf.At(buf.Len() - 1).Text; !strings.HasPrefix(last, fmt.Sprintf("%06d", n-1)) {
			t.Fatalf("the newest line is %q", last[:10])
		}
	})
}

// A viewer who may read logs but not Secrets is told that masking cannot
// cover the pod's Secret (the log itself still streams).
func TestClusterLogsSayWhenSecretsCannotBeRead(t *testing.T) {
	c := testcluster.Shared(t)
	f, _ := newLogFixture(t, c)
	ref := f.createPod(t, c, podWithSecret(f.ns, "api-0", f.node, nil, "app"))
	f.kc.SetLog(f.ns, ref.Name, "app", "started\n", nil)
	cfg := c.UserConfig(t, "log-reader-"+f.ns, []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"pods", "pods/log"}, Verbs: []string{"get", "list"}},
	}, f.ns)
	cl, err := kube.NewCluster("test", cfg, f.ns)
	if err != nil {
		t.Fatal(err)
	}
	s := &Service{Cluster: func(string) (*kube.Cluster, bool) { return cl, true }}
	lines, done := collect(context.Background(), s, ref, Options{Tail: -1})
	got := all(t, lines, done)
	if len(got) != 2 || !got[0].Notice || !strings.Contains(got[0].Text, "Secret "+f.ns+"/db-creds (forbidden)") || !strings.Contains(got[0].Text, "NOT masked") || got[1].Text != "started" {
		t.Fatalf("want a notice that db-creds is not masked, then the log; got %q", texts(got))
	}
}
