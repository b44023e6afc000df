package realcontrollers

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/logs"
	"github.com/driftdeck/driftdeck/backend/testkit/testargocd"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/backend/testkit/testflux"
)

// The real kustomize-controller reconciles two Kustomizations, one of
// which cannot build; its whole output, served as the log of a
// kustomize-controller pod (envtest has no kubelet), is narrowed to the
// lines about each, as `flux logs --kind --name` narrows it.
func TestClusterRealFluxControllerLogIsNarrowedToTheUnit(t *testing.T) {
	e := realFluxEnv(t)
	repo := testargocd.NewRepo(t)
	rev := repo.Commit("two paths", map[string]string{
		"web/cm.yaml":    testargocd.ConfigMap("web-settings", "v1"),
		"broken/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: broken-settings\ndata: [1, 2\n",
	})
	e.source("logs", repo)
	e.kustomization("web", "logs", "./web")
	e.kustomization("broken", "logs", "./broken")
	e.applied("web", testflux.Revision("main", rev))
	e.waitFor("broken failing", func() (bool, string) {
		status, reason := ready(e.get(flux.Kustomizations[0], "broken"))
		return status == "False", status + " " + reason
	})

	c := testcluster.Shared(t)
	kubelet := c.FakeKubelet(t)
	pod := controllerPod(t, c, kubelet.Node)
	out, err := e.flux.Output("kustomize-controller")
	if err != nil {
		t.Fatal(err)
	}
	kubelet.SetLog(testflux.Namespace, pod, "manager", out, nil)
	kc, err := kube.NewCluster("test", c.Config(), "default")
	if err != nil {
		t.Fatal(err)
	}
	s := &logs.Service{Cluster: func(string) (*kube.Cluster, bool) { return kc, true }}

	read := func(name string) []string {
		t.Helper()
		targets, err := s.Targets(context.Background(), e.key(name))
		if err != nil {
			t.Fatal(err)
		}
		tg := targets[0]
		if tg.Pod.Name != pod || tg.Container != "manager" || tg.About == nil || !strings.Contains(tg.Why, "kustomize-controller") {
			t.Fatalf("the log of %s is read from %+v", name, tg)
		}
		var lines []string
		err = s.Stream(context.Background(), tg.Pod, logs.Options{Container: tg.Container, Tail: -1, About: tg.About}, func(l logs.Line) {
			if !l.Notice {
				lines = append(lines, l.Text)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		return lines
	}

	web := strings.Join(read("web"), "\n")
	broken := strings.Join(read("broken"), "\n")
	if !strings.Contains(web, "ConfigMap/"+e.ns+"/web-settings") || !strings.Contains(web, testflux.Revision("main", rev)) {
		t.Errorf("web's lines do not say what it applied at which revision:\n%s\n\nthe controller's output:\n%s", web, out)
	}
	if strings.Contains(web, "broken") || strings.Contains(web, "{") && strings.Contains(web, `"level"`) {
		t.Errorf("web's lines hold another object's, or raw JSON:\n%s", web)
	}
	if !strings.Contains(broken, "error") || !strings.Contains(broken, "broken/cm.yaml") || strings.Contains(broken, "web-settings") {
		t.Errorf("broken's lines do not give its build error alone:\n%s\n\nthe controller's output:\n%s", broken, out)
	}
}

// controllerPod is a running pod labelled as Flux's manifests label
// kustomize-controller's, on the fake kubelet's node.
func controllerPod(t *testing.T, c *testcluster.Cluster, node string) string {
	t.Helper()
	kc := c.Kube(t)
	p, err := kc.CoreV1().Pods(testflux.Namespace).Create(context.Background(), &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "kustomize-controller-", Labels: map[string]string{"app": "kustomize-controller"}},
		Spec: corev1.PodSpec{NodeName: node, AutomountServiceAccountToken: new(bool),
			Containers: []corev1.Container{{Name: "manager", Image: "ghcr.io/fluxcd/kustomize-controller"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = kc.CoreV1().Pods(testflux.Namespace).Delete(context.Background(), p.Name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)})
	})
	return p.Name
}
