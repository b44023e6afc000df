package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// Two replicas of the built binary's `driftdeck agent --leader-elect`, on a
// Lease of a non-default name, with a config file of one (dry-run) policy:
// both serve /metrics, only the holder of the Lease acts. The holder is
// SIGKILLed (its Lease is not released); the other takes over within the
// lease duration and retry period, and the pause that expired during the
// hand-over is resumed exactly once: one Event, one audit line. status finds
// the agent by its Lease's label, before and after.
func TestClusterTheAgentCommandHandsOverAfterTheLeaderCrashes(t *testing.T) {
	bin := builtBinary(t)
	isolate(t)
	c := testcluster.Shared(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	kc := kubernetes.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	createJSON(t, dyn, ns, `{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"web"},
		"spec":{"project":"default","source":{"repoURL":"https://git.example.com/a.git","path":"web"},"destination":{"server":"https://kubernetes.default.svc","namespace":"web"},"syncPolicy":{"automated":{"prune":true,"selfHeal":true}}},
		"status":{"sync":{"status":"Synced"},"health":{"status":"Healthy"}}}`)
	createJSON(t, dyn, ns, `{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"later"},
		"spec":{"project":"default","source":{"repoURL":"https://git.example.com/a.git","path":"later"},"destination":{"server":"https://kubernetes.default.svc","namespace":"later"},"syncPolicy":{"automated":{"selfHeal":true}}},
		"status":{"sync":{"status":"Synced"},"health":{"status":"Healthy"}}}`)
	// An operation Running on a hook for 20 minutes: the dry-run policy's case.
	createJSON(t, dyn, ns, fmt.Sprintf(`{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"migrate"},
		"spec":{"project":"default","source":{"repoURL":"https://git.example.com/a.git","path":"migrate"},"destination":{"server":"https://kubernetes.default.svc","namespace":"migrate"},"syncPolicy":{"automated":{}}},
		"operation":{"initiatedBy":{"automated":true},"sync":{"revision":"%[1]s"}},
		"status":{"sync":{"status":"OutOfSync","revision":"%[1]s"},"health":{"status":"Progressing"},
			"operationState":{"phase":"Running","message":"waiting for completion of hook batch/Job/db-migrate","startedAt":%[2]q,"operation":{"sync":{"revision":"%[1]s"}}}}}`,
		"1111111111111111111111111111111111111111", time.Now().Add(-20*time.Minute).UTC().Format(time.RFC3339)))
	kubeconfig := testcluster.Kubeconfig(t, c.Config(), "kind-test")
	config := "policies:\n  - name: hook-watch\n    when: argo-hook-stuck\n    after: 10m\n    dryRun: true\n"
	const leaseName, leaseSeconds = "handover-agent", 4
	leaseDuration := leaseSeconds * time.Second
	retryPeriod := leaseDuration / 7 // what the agent derives from the lease duration
	args := []string{"--kubeconfig", kubeconfig, "-n", ns, "--leader-elect", "--leader-election-namespace", ns,
		"--leader-election-id", leaseName, "--leader-elect-lease-duration", leaseDuration.String(), "--interval", "200ms"}
	holder := func() string {
		l, err := kc.CoordinationV1().Leases(ns).Get(t.Context(), leaseName, metav1.GetOptions{})
		if err != nil || l.Spec.HolderIdentity == nil {
			return ""
		}
		return *l.Spec.HolderIdentity
	}
	leading := map[string]string{"context": "kind-test"}

	// Registered before the replicas start, so run after they are killed:
	// a Lease left behind would be an agent to later tests' status.
	t.Cleanup(func() {
		_ = kc.CoordinationV1().Leases(ns).Delete(context.Background(), leaseName, metav1.DeleteOptions{})
	})
	first := startAgent(t, bin, "replica-a", config, args...)
	testcluster.Eventually(t, 60*time.Second, "replica-a holding the Lease", func() bool {
		return holder() == "replica-a" && first.sum("driftdeck_agent_leader", leading) == 1
	})
	second := startAgent(t, bin, "replica-b", config, args...)
	// Both serve the model; only the leader runs the policy (in dry run).
	for _, p := range []*agentProcess{first, second} {
		testcluster.Eventually(t, 60*time.Second, "both replicas counting the units", func() bool {
			return p.sum("driftdeck_units", map[string]string{"namespace": ns, "state": "stuck"}) == 1
		})
	}
	testcluster.Eventually(t, 30*time.Second, "the leader's dry-run remediation", func() bool {
		return first.sum("driftdeck_remediations_total", map[string]string{"policy": "hook-watch", "outcome": "dry-run"}) >= 1
	})
	if v := second.sum("driftdeck_agent_leader", leading); v != 0 {
		t.Fatalf("the follower says it leads (%g) while replica-a holds the Lease", v)
	}
	if v := second.sum("driftdeck_remediations_total", nil); v != 0 {
		t.Errorf("the follower ran a policy %g times", v)
	}

	// status finds the agent by its Lease's label, whatever its name.
	if code, _, stderr := run(t, "pause", "argocd/"+ns+"/later", "--reason", "INC-12", "--until", "2h", "--yes", "--kubeconfig", kubeconfig); code != 0 {
		t.Fatalf("pause: exit %d: %s", code, stderr)
	}
	endsBy := func() string {
		t.Helper()
		code, out, stderr := run(t, "status", "-n", ns, "-o", "json", "--kubeconfig", kubeconfig)
		var recs []unitRecord
		if err := json.Unmarshal([]byte(out), &recs); code != 0 || err != nil {
			t.Fatalf("status: exit %d %v: %s", code, err, stderr)
		}
		for _, r := range recs {
			if r.Name == "later" && r.Pause != nil {
				return r.Pause.EndsBy
			}
		}
		t.Fatalf("status has no paused unit later: %s", out)
		return ""
	}
	if got := endsBy(); !strings.HasSuffix(got, "by the agent") {
		t.Errorf("status while replica-a holds the Lease %s/%s: endsBy %q", ns, leaseName, got)
	}
	code, _, stderr := run(t, "pause", "argocd/"+ns+"/web", "--reason", "INC-11: handover", "--until", "2s", "--yes", "--kubeconfig", kubeconfig)
	if code != 0 {
		t.Fatalf("pause: exit %d: %s", code, stderr)
	}
	first.kill()
	killed := time.Now()
	testcluster.Eventually(t, 2*leaseDuration+10*time.Second, "replica-b taking the Lease over", func() bool { return holder() == "replica-b" })
	took := time.Since(killed)
	// A crashed leader's Lease is taken once it is leaseDuration old, by the
	// follower's next retry; the follower saw the last renewal up to a retry
	// after it happened. client-go jitters each retry up to 2.2 retry
	// periods; the 2s more are the SIGKILL, the API server and the poll
	// here on a busy machine.
	if bound := leaseDuration + 2*retryPeriod*22/10 + 2*time.Second; took > bound {
		t.Errorf("the hand-over took %s, more than the lease duration and retry periods (%s)", took, bound)
	}
	t.Logf("hand-over after SIGKILL of the leader took %s (lease %s, retry %s)", took.Round(time.Millisecond), leaseDuration, retryPeriod.Round(time.Millisecond))
	testcluster.Eventually(t, 10*time.Second, "replica-b saying it leads", func() bool { return second.sum("driftdeck_agent_leader", leading) == 1 })
	testcluster.Eventually(t, 30*time.Second, "the expired pause resumed", func() bool {
		return getApp(t, dyn, ns, "web").GetAnnotations()["driftdeck.io/paused-by"] == ""
	})
	if got := endsBy(); !strings.HasSuffix(got, "by the agent") {
		t.Errorf("status after the hand-over: endsBy %q", got)
	}
	resumes := func() (lines, events int) {
		for _, p := range []*agentProcess{first, second} {
			for _, e := range p.auditLines() {
				if e.Action == "resume" && e.Unit == "argocd/"+ns+"/web" {
					lines++
				}
			}
		}
		l, err := kc.CoreV1().Events(ns).List(t.Context(), metav1.ListOptions{FieldSelector: "involvedObject.name=web"})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range l.Items {
			if e.Reason == "DriftdeckResume" {
				events++
			}
		}
		return lines, events
	}
	testcluster.Eventually(t, 20*time.Second, "the resume's audit line and Event", func() bool { l, e := resumes(); return l >= 1 && e >= 1 })
	// A second resume would come on the leader's next passes (200ms apart).
	time.Sleep(time.Second)
	if l, e := resumes(); l != 1 || e != 1 {
		t.Errorf("the pause was resumed with %d audit lines and %d Events, want exactly one each", l, e)
	}
}
