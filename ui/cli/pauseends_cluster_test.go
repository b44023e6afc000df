package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/driftdeck/driftdeck/backend/agent"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// A freeze with an expiry says who ends it: nobody while no agent holds its
// Lease, the agent once one does.
func TestClusterStatusSaysWhoEndsAnExpiringPause(t *testing.T) {
	c := testcluster.Shared(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	kc := kubernetes.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	createJSON(t, dyn, ns, `{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"web"},
		"spec":{"project":"default","source":{"repoURL":"https://git.example.com/a.git","path":"web"},"destination":{"server":"https://kubernetes.default.svc","namespace":"web"},"syncPolicy":{"automated":{"selfHeal":true}}},
		"status":{"sync":{"status":"Synced"},"health":{"status":"Healthy"}}}`)
	kubeconfig := testcluster.Kubeconfig(t, c.Config(), "kind-test")
	run := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		if code := Main(append(args, "--kubeconfig", kubeconfig), strings.NewReader(""), &out, &errOut); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut.String())
		}
		return out.String()
	}
	run("pause", "argocd/"+ns+"/web", "--reason", "INC-9", "--until", "2h", "--yes")
	endsBy := func() string {
		t.Helper()
		var recs []unitRecord
		if err := json.Unmarshal([]byte(run("status", "-n", ns, "-o", "json")), &recs); err != nil || len(recs) != 1 || recs[0].Pause == nil {
			t.Fatalf("status: %v %+v", err, recs)
		}
		return recs[0].Pause.EndsBy
	}
	if got := endsBy(); !strings.HasPrefix(got, "no agent runs: nothing will resume it") {
		t.Errorf("without an agent: endsBy %q", got)
	}
	if wide := run("status", "-n", ns, "-o", "wide"); !strings.Contains(wide, "PAUSE ENDS") || !strings.Contains(wide, "no agent runs") {
		t.Errorf("-o wide must say who ends the pause:\n%s", wide)
	}

	if _, err := kc.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: agent.DefaultLeaseNamespace}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	holder, seconds, now := "agent-0", int32(30), metav1.NewMicroTime(time.Now())
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: agent.DefaultLeaseName, Namespace: agent.DefaultLeaseNamespace},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &seconds, AcquireTime: &now, RenewTime: &now}}
	if _, err := kc.CoordinationV1().Leases(agent.DefaultLeaseNamespace).Create(t.Context(), lease, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = kc.CoordinationV1().Leases(agent.DefaultLeaseNamespace).Delete(t.Context(), agent.DefaultLeaseName, metav1.DeleteOptions{})
	})
	if got := endsBy(); !strings.HasSuffix(got, "by the agent") || !strings.HasPrefix(got, "resumes ") {
		t.Errorf("with an agent holding its Lease: endsBy %q", got)
	}
}
