package logs

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/driftdeck/driftdeck/backend/argoapi"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/objread"
	"github.com/driftdeck/driftdeck/backend/safetext"
)

// The log of an Application's pod read through Argo CD's API server, for
// the contexts whose Applications go that way (ADR 0033): under the user's
// Argo CD RBAC, from whichever cluster the Application deploys to, with no
// Kubernetes access. argocd-server serves the logs of the pods of the
// Application's resource tree only, so the pods are found there.

// argoRoute is the API server a unit's pods' logs are read through; nil on
// the Kubernetes route.
func (s *Service) argoRoute(k model.Key) *argoapi.Client { return argoapi.Routes(s.ArgoAPI).For(k) }

// treePod is a Pod of an Application's resource tree.
type treePod struct {
	namespace, name, health string
	// jobs are the Jobs it descends from.
	jobs []string
}

// treePods are the Pods of the Application's resource tree, as its
// controller keeps it.
func treePods(ctx context.Context, api *argoapi.Client, k model.Key) ([]treePod, error) {
	nodes, err := api.ResourceTree(ctx, argoapi.AppOf(k))
	if err != nil {
		return nil, fmt.Errorf("the resource tree of %s: %w", k.Ref(), err)
	}
	byUID := map[string]*objread.Reader{}
	for _, n := range nodes {
		r := objread.New(n)
		byUID[r.Str("uid")] = r
	}
	var jobsOf func(r *objread.Reader, depth int) []string
	jobsOf = func(r *objread.Reader, depth int) []string {
		var jobs []string
		for _, parent := range r.Objects("parentRefs") {
			if parent.Str("kind") == "Job" {
				jobs = append(jobs, parent.Str("name"))
			}
			if up, ok := byUID[parent.Str("uid")]; ok && depth < 16 {
				jobs = append(jobs, jobsOf(up, depth+1)...)
			}
		}
		return jobs
	}
	var pods []treePod
	for _, n := range nodes {
		r := objread.New(n)
		if r.Str("kind") != "Pod" || r.Str("group") != "" {
			continue
		}
		pods = append(pods, treePod{namespace: r.Str("namespace"), name: r.Str("name"), health: r.Str("health", "status"), jobs: jobsOf(r, 0)})
	}
	return pods, nil
}

// targetOf is a pod of the tree as a target: its log comes through the
// API server, which names no containers (the pod's default is read unless
// one is named).
func (p treePod) targetOf(k model.Key, why string) Target {
	return Target{Pod: PodRef{Context: k.Context, Namespace: p.namespace, Name: p.name, App: k}, Why: why}
}

// argoHookTargets: the pods of the Jobs in the Application's resource tree
// (its hooks), the ones still progressing first.
func argoHookTargets(ctx context.Context, api *argoapi.Client, k model.Key) ([]Target, error) {
	pods, err := treePods(ctx, api, k)
	if err != nil {
		return nil, err
	}
	var out []Target
	for _, p := range pods {
		if len(p.jobs) > 0 {
			out = append(out, p.targetOf(k, fmt.Sprintf("pod of Job %s (%s)", p.jobs[0], strings.ToLower(p.health))))
		}
	}
	slices.SortStableFunc(out, func(a, b Target) int { return progressingFirst(a.Why) - progressingFirst(b.Why) })
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: %w: its resource tree in Argo CD holds no Job's pod", k.Ref(), ErrNoPod)
	}
	return out, nil
}

func progressingFirst(why string) int {
	if strings.HasSuffix(why, "(progressing)") {
		return 0
	}
	return 1
}

// argoResource resolves --resource through the API server: a pod, or a
// Job's pods, of the Application's resource tree.
func argoResource(ctx context.Context, api *argoapi.Client, k model.Key, kind, namespace, name string) ([]Target, error) {
	pods, err := treePods(ctx, api, k)
	if err != nil {
		return nil, err
	}
	var out []Target
	for _, p := range pods {
		if namespace != "" && p.namespace != namespace {
			continue
		}
		switch {
		case kind == "pod" && p.name == name:
			out = append(out, p.targetOf(k, ""))
		case kind == "job" && slices.Contains(p.jobs, name):
			out = append(out, p.targetOf(k, "pod of Job "+name+" ("+strings.ToLower(p.health)+")"))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: %w: %s/%s is not in its resource tree in Argo CD, and Argo CD serves the logs of those pods only", k.Ref(), ErrNoPod, kind, name)
	}
	return out, nil
}

// argoStream is Stream through the API server. Argo CD does not let
// driftdeck read the pod's Secrets, so their values are not masked: the
// first line says so.
func argoStream(ctx context.Context, api *argoapi.Client, p PodRef, o Options, each func(Line)) error {
	each(Line{Notice: true, Text: "the values of the pod's Secrets are not masked: its log comes through the Argo CD API server, which does not let driftdeck read them"})
	q := argoapi.LogQuery{Namespace: p.Namespace, Pod: p.Name, Container: o.Container, Follow: o.Follow, Previous: o.Previous}
	if o.Since > 0 {
		q.SinceSeconds = int64(max(o.Since.Seconds(), 1))
	}
	if o.Tail > 0 {
		q.TailLines = o.Tail
	}
	err := api.PodLogs(ctx, argoapi.AppOf(p.App), q, func(e argoapi.LogEntry) {
		text := e.Content
		if o.Timestamps {
			text = e.Time + " " + text
		}
		_ = readLines(strings.NewReader(text), func(line string, cut int) {
			line = safetext.Visible(line)
			if cut > 0 {
				line += fmt.Sprintf(" … (%d more bytes of this line not shown)", cut)
			}
			each(Line{Text: line})
		})
	})
	if err != nil {
		return fmt.Errorf("log of %s through Argo CD: %w", p, err)
	}
	return nil
}
