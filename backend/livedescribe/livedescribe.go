// Package livedescribe reads, fresh from the cluster, everything the detail
// view shows about one unit (describe.Detail).
package livedescribe

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/driftdeck/driftdeck/backend/agent"
	"github.com/driftdeck/driftdeck/backend/argoapi"
	"github.com/driftdeck/driftdeck/backend/describe"
	"github.com/driftdeck/driftdeck/backend/engines"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/objread"
	"github.com/driftdeck/driftdeck/backend/pause"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/workspace"
)

// Describer reads details from the clusters of a fleet.
type Describer struct {
	Cluster func(context string) (*kube.Cluster, bool)
	Updates *pulumiop.UpdateIndex
	// ArgoAPI, when it names a server for a context, is the Argo CD API
	// server that context's Applications are read through (ADR 0033).
	ArgoAPI func(context string) (*argoapi.Client, bool)
}

// Describe reads a unit's details. It returns what it could read; parts that
// failed are listed in Problems.
func (d *Describer) Describe(ctx context.Context, k model.Key) (*describe.Detail, error) {
	c, ok := d.Cluster(k.Context)
	if !ok {
		return nil, fmt.Errorf("unknown context %q", k.Context)
	}
	gvr, ok := engines.Resource(k.Engine)
	if !ok {
		return nil, fmt.Errorf("no details for %s units", k.Engine)
	}
	api := d.argoAPI(k)
	var obj *unstructured.Unstructured
	if api != nil {
		app, err := api.Application(ctx, argoapi.AppOf(k))
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", k.Ref(), err)
		}
		obj = &unstructured.Unstructured{Object: app}
	} else {
		var err error
		obj, err = c.Dynamic.Resource(gvr).Namespace(k.Namespace).Get(ctx, k.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("%s does not exist (any more)", k.Ref())
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", k.Ref(), err)
		}
	}
	det := &describe.Detail{Key: k, Fetched: time.Now()}
	shown := obj.DeepCopy()
	unstructuredDrop(shown.Object, "metadata", "managedFields")
	if k.Engine == model.EnginePulumi {
		maskOutputs(shown.Object, det)
		maskStackSecrets(shown.Object)
	}
	if y, err := yaml.Marshal(shown.Object); err == nil {
		det.YAML = string(y)
	} else {
		det.Problems = append(det.Problems, "YAML: "+err.Error())
	}
	r := objread.New(obj.Object)
	switch k.Engine {
	case model.EngineArgoCD:
		det.History = history(r)
		det.Resources = resources(r.Objects("status", "resources"))
		det.SyncResult = resources(r.Objects("status", "operationState", "syncResult", "resources"))
	case model.EnginePulumi:
		if d.Updates != nil {
			det.Updates = d.Updates.ForStack(k.Context, k.Namespace, k.Name)
		}
		pods, err := c.Kube.CoreV1().Pods(k.Namespace).List(ctx, metav1.ListOptions{LabelSelector: workspace.SelectorOf(k.Name)})
		if err != nil {
			det.Problems = append(det.Problems, "workspace pods: "+err.Error())
		} else {
			det.MemoryKills = workspace.MemoryKills(pods.Items)
		}
	}
	if p, _ := pause.Read(obj.GetAnnotations()); p != nil && !p.Until.IsZero() {
		presence := agent.Find(ctx, c.Kube, det.Fetched)
		det.Agent = &presence
	}
	events, err := d.events(ctx, c, api, k, obj.GetUID())
	if err != nil {
		det.Problems = append(det.Problems, "events: "+err.Error())
	} else {
		for _, e := range events {
			// Some API servers (and fakes) ignore field selectors: check again.
			if e.InvolvedObject.Name != k.Name || (e.InvolvedObject.UID != "" && e.InvolvedObject.UID != obj.GetUID()) {
				continue
			}
			last := e.LastTimestamp.Time
			if last.IsZero() {
				last = e.EventTime.Time
			}
			src := e.Source.Component
			if src == "" {
				src = e.ReportingController
			}
			det.Events = append(det.Events, describe.Event{Type: e.Type, Reason: e.Reason, Message: e.Message, Source: src, Count: e.Count, Last: last})
		}
		sort.Slice(det.Events, func(i, j int) bool { return det.Events[i].Last.After(det.Events[j].Last) })
	}
	return det, nil
}

func (d *Describer) argoAPI(k model.Key) *argoapi.Client { return argoapi.Routes(d.ArgoAPI).For(k) }

// events are the unit's Events: through Argo CD's API server for an
// Application read there, else from the unit's namespace.
func (d *Describer) events(ctx context.Context, c *kube.Cluster, api *argoapi.Client, k model.Key, uid types.UID) ([]corev1.Event, error) {
	if api != nil {
		return api.Events(ctx, argoapi.AppOf(k))
	}
	list, err := c.Kube.CoreV1().Events(k.Namespace).List(ctx, metav1.ListOptions{
		FieldSelector: fields.AndSelectors(
			fields.OneTermEqualSelector("involvedObject.name", k.Name),
			fields.OneTermEqualSelector("involvedObject.uid", string(uid)),
		).String(),
	})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

func history(r *objread.Reader) []describe.HistoryEntry {
	var out []describe.HistoryEntry
	for _, h := range r.Objects("status", "history") {
		rev := h.Str("revision")
		if rev == "" {
			var revs []string
			for _, v := range h.Slice("revisions") {
				if s, ok := v.(string); ok {
					revs = append(revs, s)
				}
			}
			rev = strings.Join(revs, ",")
		}
		by := h.Str("initiatedBy", "username")
		if auto, _ := h.Bool("initiatedBy", "automated"); auto {
			by = "automated"
		}
		out = append(out, describe.HistoryEntry{ID: h.Int("id"), Revision: rev, DeployedAt: h.Time("deployedAt"), InitiatedBy: by})
	}
	// Newest first: that is what a user rolling back looks for.
	sort.Slice(out, func(i, j int) bool { return out[i].ID > out[j].ID })
	return out
}

func resources(items []*objread.Reader) []describe.Resource {
	var out []describe.Resource
	for _, it := range items {
		prune, _ := it.Bool("requiresPruning")
		st := it.Str("status")
		msg := it.Str("message")
		out = append(out, describe.Resource{
			Group: it.Str("group"), Kind: it.Str("kind"), Namespace: it.Str("namespace"), Name: it.Str("name"),
			Status: st, Health: it.Str("health", "status"), Message: msg, RequiresPruning: prune,
		})
	}
	return out
}

// maskOutputs replaces Stack output values with a placeholder: outputs may hold
// secrets, and the operator's own mask is only as good as the program's.
func maskOutputs(obj map[string]any, det *describe.Detail) {
	st, _ := obj["status"].(map[string]any)
	outs, _ := st["outputs"].(map[string]any)
	for name := range outs {
		det.Outputs = append(det.Outputs, name)
		outs[name] = hidden
	}
	sort.Strings(det.Outputs)
}

func unstructuredDrop(obj map[string]any, path ...string) {
	cur := obj
	for i, p := range path {
		if i == len(path)-1 {
			delete(cur, p)
			return
		}
		next, ok := cur[p].(map[string]any)
		if !ok {
			return
		}
		cur = next
	}
}
