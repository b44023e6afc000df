package agent

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/audit"
	"github.com/driftdeck/driftdeck/backend/audit/audittest"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pause"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// pauseAs pauses an Application for d as user, a person with a client
// certificate who may read and patch Applications and record Events in the
// namespace, from their own machine (their own audit log). It returns the
// pause as recorded on the object.
func (w *world) pauseAs(user string, k model.Key, reason string, d time.Duration) *model.PauseRecord {
	w.t.Helper()
	cfg := w.c.UserConfig(w.t, user, []rbacv1.PolicyRule{
		{APIGroups: []string{"argoproj.io"}, Resources: []string{"applications"}, Verbs: []string{"get", "patch"}},
		{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create"}},
	}, w.ns)
	kc, err := kube.NewCluster(k.Context, cfg, "default")
	if err != nil {
		w.t.Fatal(err)
	}
	log, err := audit.Open(filepath.Join(w.t.TempDir(), user+"-audit.jsonl"))
	if err != nil {
		w.t.Fatal(err)
	}
	exec := &actions.Executor{Cluster: func(string) (*kube.Cluster, bool) { return kc, true }, Audit: log}
	if _, err := exec.Execute(context.Background(), actions.Request{Kind: actions.Pause, Key: k, Reason: reason, Until: time.Now().Add(d)}); err != nil {
		w.t.Fatalf("pausing %s as %s: %v", k.Name, user, err)
	}
	var lines []string
	for _, e := range audittest.Entries(w.t, log.Path()) {
		lines = append(lines, e.Actor+" "+e.Action+" "+e.Outcome+" "+e.Reason)
	}
	if want := []string{user + " pause done " + reason}; !reflect.DeepEqual(lines, want) {
		w.t.Fatalf("%s's audit log of the pause: %q, want %q", user, lines, want)
	}
	p, errs := pause.Read(w.get(k.Name).GetAnnotations())
	if p == nil || len(errs) > 0 || p.By != user || p.Reason != reason {
		w.t.Fatalf("the pause recorded on %s: %+v %v, want by %s for %q", k.Name, p, errs, user, reason)
	}
	return p
}

// checkResumedBy checks that the expired pause p of an Application was ended
// by agent, the user the agent runs as, under its own name and quoting the
// pause's reason, in its audit log and in an Event; and that the sync policy
// is back exactly as recorded (automated as the pause's record, the rest as
// before the pause).
func (w *world) checkResumedBy(agent string, k model.Key, p *model.PauseRecord, before any) {
	w.t.Helper()
	var resumes []audit.Entry
	var resumeEvents, pauseEvents []string
	testcluster.Eventually(w.t, 20*time.Second, "the resume's audit line and Event", func() bool {
		resumes, resumeEvents, pauseEvents = nil, nil, nil
		for _, e := range w.auditLines() {
			if e.Action == "resume" {
				resumes = append(resumes, e)
			}
		}
		for _, e := range w.events(k.Name) {
			switch e.Reason {
			case "DriftdeckResume":
				resumeEvents = append(resumeEvents, e.Message)
			case "DriftdeckPause":
				pauseEvents = append(pauseEvents, e.Message)
			}
		}
		return len(resumes) > 0 && len(resumeEvents) > 0
	})
	quoted := "expired pause: " + p.Reason
	var lines []string
	for _, e := range resumes {
		lines = append(lines, e.Actor+" "+e.Outcome+" "+e.Reason+" "+e.Previous)
	}
	if want := []string{agent + " done " + quoted + " " + p.Previous}; !reflect.DeepEqual(lines, want) {
		w.t.Errorf("the agent's audit lines of the resume (actor, outcome, reason, previous):\n got  %q\n want %q", lines, want)
	}
	if len(resumeEvents) != 1 || !strings.HasPrefix(resumeEvents[0], agent+" resumed ") || !strings.HasSuffix(resumeEvents[0], ": "+quoted) {
		w.t.Errorf("Events of the resume: %q, want one by %s ending %q", resumeEvents, agent, ": "+quoted)
	}
	if len(pauseEvents) != 1 || !strings.HasPrefix(pauseEvents[0], p.By+" paused ") {
		w.t.Errorf("Events of the pause: %q, want one by %s", pauseEvents, p.By)
	}

	o := w.get(k.Name)
	for name := range o.GetAnnotations() {
		if strings.HasPrefix(name, "driftdeck.io/paused-") {
			w.t.Errorf("annotation %s left after the resume", name)
		}
	}
	after := o.Object["spec"].(map[string]any)["syncPolicy"]
	if !reflect.DeepEqual(normalize(w.t, after), normalize(w.t, before)) {
		w.t.Errorf("the sync policy after the resume differs from before the pause:\nbefore %s\nafter  %s", jsonOf(w.t, before), jsonOf(w.t, after))
	}
	var recorded any
	if err := json.Unmarshal([]byte(p.Previous), &recorded); err != nil {
		w.t.Fatalf("the pause's record %q: %v", p.Previous, err)
	}
	if automated := after.(map[string]any)["automated"]; !reflect.DeepEqual(normalize(w.t, automated), recorded) {
		w.t.Errorf("spec.syncPolicy.automated after the resume: %s, want the pause's record %s", jsonOf(w.t, automated), p.Previous)
	}
}
