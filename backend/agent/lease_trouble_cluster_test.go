package agent

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pause"
	"github.com/driftdeck/driftdeck/backend/testkit/syncbuf"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

func readyz(t *testing.T, a *Agent) (int, string) {
	t.Helper()
	resp, err := http.Get("http://" + a.Addr("probes").String() + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// An agent started before its Lease's namespace exists cannot lead: it says
// so in its log at once and again while it retries, /readyz fails with the
// reason, the metrics say it does not lead and why, and whoever reads who
// ends a pause learns that an agent runs but cannot write. Once the
// namespace exists it takes the Lease and ends the expired pause; a second
// replica then follows, ready and without trouble.
func TestClusterAnAgentWithoutItsLeaseNamespaceSaysWhyItCannotWrite(t *testing.T) {
	w := newWorldAlone(t, "test")
	ctx := context.Background()
	leaseNS := "missing-" + w.ns[len(w.ns)-5:] // a namespace name is at most 63 characters
	w.app("held", `"automated":{"selfHeal":true}`, `"sync":{"status":"Synced","revision":"`+sha+`"},"health":{"status":"Healthy"}`)
	k := model.Key{Context: "test", Engine: model.EngineArgoCD, Namespace: w.ns, Name: "held"}
	if _, err := w.executor(false).Execute(ctx, actions.Request{Kind: actions.Pause, Key: k, Reason: "INC-7", Until: time.Now().Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	election := func(id string) *Election {
		return &Election{Context: "test", Client: w.kc.Kube, Namespace: leaseNS, Name: "driftdeck-agent", Identity: id, LeaseDuration: time.Second}
	}
	log := &syncbuf.Buffer{}
	a := w.agent(election("blocked-replica"))
	a.Log = log
	start(t, a)

	why := `not leading: cannot take Lease ` + leaseNS + `/driftdeck-agent: namespaces "` + leaseNS + `" not found`
	first := regexp.MustCompile(`(?m)^\S+ context test: ` + regexp.QuoteMeta(why) + ` \(retrying every \S+\)$`)
	retry := regexp.MustCompile(`(?m)^\S+ context test: still ` + regexp.QuoteMeta(why) + ` \(\d+ more failed attempts? since \S+, retrying every \S+\)$`)
	testcluster.Eventually(t, 30*time.Second, "the log saying why the agent does not lead", func() bool { return first.MatchString(log.String()) })
	testcluster.Eventually(t, 30*time.Second, "the log saying it again on a retry", func() bool { return retry.MatchString(log.String()) })

	if code, body := readyz(t, a); code != http.StatusServiceUnavailable || !strings.Contains(body, "context test: "+why) {
		t.Errorf("/readyz of an agent that cannot take its Lease: %d %q, want 503 naming why", code, body)
	}
	if got := scrapeValue(t, a, "driftdeck_agent_leader", map[string]string{"context": "test"}); got != 0 {
		t.Errorf("driftdeck_agent_leader = %v, want 0", got)
	}
	if got := seriesOf(t, a, "driftdeck_agent_lease_failing", map[string]string{"context": "test", "reason": "namespace_not_found"}); len(got) != 1 || got[0] != 1 {
		t.Errorf("driftdeck_agent_lease_failing{reason=namespace_not_found} = %v, want [1]", got)
	}
	if got := scrapeValue(t, a, "driftdeck_agent_lease_errors_total", map[string]string{"context": "test", "reason": "namespace_not_found"}); got < 2 {
		t.Errorf("driftdeck_agent_lease_errors_total{reason=namespace_not_found} = %v, want every failed try counted", got)
	}
	held, _ := pause.Read(w.get("held").GetAnnotations())
	if held == nil || held.Until.IsZero() {
		t.Fatalf("the pause recorded: %+v, want one with an expiry", held)
	}
	wantEnds := `an agent runs but cannot write: agent blocked-replica cannot take Lease ` + leaseNS + `/driftdeck-agent: namespaces "` + leaseNS + `" not found; nothing will resume it`
	var ends string
	testcluster.Eventually(t, 30*time.Second, "who ends the pause saying an agent runs but cannot write", func() bool {
		ends = Find(ctx, w.kc.Kube, time.Now()).Ends(held, time.Now())
		return strings.HasPrefix(ends, wantEnds)
	})
	if w.get("held").GetAnnotations()["driftdeck.io/paused-by"] == "" {
		t.Fatal("the expired pause was resumed by an agent that holds no Lease")
	}

	if _, err := w.kc.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: leaseNS}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	testcluster.Eventually(t, 30*time.Second, "the agent leading once the namespace exists, and ending the pause", func() bool {
		return a.Leads("test") && w.get("held").GetAnnotations()["driftdeck.io/paused-by"] == ""
	})
	if !strings.Contains(log.String(), "context test: Lease "+leaseNS+"/driftdeck-agent answers again, after ") {
		t.Errorf("the log does not say the Lease answers again:\n%s", log)
	}
	if code, body := readyz(t, a); code != http.StatusOK || strings.Contains(body, "not leading") {
		t.Errorf("/readyz of the leader: %d %q", code, body)
	}
	if got := seriesOf(t, a, "driftdeck_agent_lease_failing", map[string]string{"context": "test"}); len(got) != 0 {
		t.Errorf("driftdeck_agent_lease_failing of the leader: %v, want no series", got)
	}

	followerLog := &syncbuf.Buffer{}
	b := w.agent(election("following-replica"))
	b.Log = followerLog
	start(t, b)
	testcluster.Eventually(t, 30*time.Second, "the follower ready", func() bool { code, _ := readyz(t, b); return code == http.StatusOK })
	time.Sleep(time.Second) // several of the follower's tries (every 142ms), each one it could log
	if code, body := readyz(t, b); code != http.StatusOK || strings.Contains(body, "not leading") || b.Leads("test") {
		t.Errorf("a follower of a held Lease: /readyz %d %q, leads %v; want ready, not leading, no trouble", code, body, b.Leads("test"))
	}
	if strings.Contains(followerLog.String(), "cannot take Lease") {
		t.Errorf("a follower logged Lease trouble:\n%s", followerLog)
	}
}
