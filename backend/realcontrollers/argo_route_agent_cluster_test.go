package realcontrollers

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/audit"
	"github.com/driftdeck/driftdeck/backend/config"
	"github.com/driftdeck/driftdeck/backend/fleet"
	"github.com/driftdeck/driftdeck/backend/headless"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/testkit/syncbuf"
	"github.com/driftdeck/driftdeck/backend/testkit/testargocd"
	"github.com/driftdeck/driftdeck/backend/writeguard"
)

// The agent with an Argo CD project role's token, and a kube identity that
// may do nothing: it ends an expired pause through argocd-server, under the
// project role, and its audit line says so.
func TestClusterTheAgentEndsAPauseThroughTheAPIServerUnderAProjectRole(t *testing.T) {
	e := realArgo(t)
	srv, err := e.argo.StartServer()
	if err != nil {
		t.Fatalf("argocd-server: %v", err)
	}
	token, err := srv.ProjectToken(e.argo, "driftdeck-agent", []string{
		"p, proj:default:driftdeck-agent, applications, get, default/*, allow",
		"p, proj:default:driftdeck-agent, applications, update, default/*, allow",
	})
	if err != nil {
		t.Fatal(err)
	}
	repo := testargocd.NewRepo(t)
	repo.Commit("v1", map[string]string{"agent-web/cm.yaml": testargocd.ConfigMap("agent-web", "v1")})
	e.app("agent-web", repo, autoSync(true))
	e.do(actions.Request{Kind: actions.Pause, Key: e.key("agent-web"), Reason: "INC-8: short hold", Until: time.Now().Add(3 * time.Second)})

	// The agent's identity: the project role's token, no Kubernetes rights.
	w := writerWithToken(t, srv, token, "argo-only-agent")
	kc, _ := w.exec.Cluster("test")
	ctx, cancel := context.WithCancel(context.Background())
	var out syncbuf.Buffer
	_, done, err := headless.Start(ctx, headless.Options{Clusters: []*kube.Cluster{kc}, Config: &config.Config{}, Audit: w.exec.Audit,
		Interval: time.Second, MetricsAddr: "0", ProbeAddr: "0", Log: &out, Argo: []*fleet.ArgoRoute{{Client: w.api, Context: "test"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); <-done }()

	// The audit line follows the write: wait for both.
	var resumes []audit.Entry
	e.waitFor("the agent to end the expired pause", func() (bool, string) {
		u := argoUnit(e, "agent-web")
		resumes = nil
		for _, en := range w.entries(t) {
			if en.Action == string(actions.Resume) {
				resumes = append(resumes, en)
			}
		}
		return u.Pause == nil && u.Argo.AutoSync && len(resumes) > 0, "agent log:\n" + out.String()
	})
	if len(resumes) != 1 || resumes[0].Outcome != writeguard.OutcomeDone || resumes[0].Route != "argocd-api" || !strings.Contains(resumes[0].Actor, "proj:default:driftdeck-agent") {
		t.Fatalf("the agent's audit lines of the resume: %+v; want one, done through argocd-api as the project role", resumes)
	}
}
