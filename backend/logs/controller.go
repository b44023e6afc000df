package logs

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
)

// fluxNamespace is where `flux install` and the Flux Operator put the
// controllers: where they are looked for when the pods of every namespace
// may not be listed (flux logs' --flux-namespace default).
const fluxNamespace = "flux-system"

// fluxControllers reconcile the Flux units, which have no pod of their own:
// their log is the controller's, narrowed to their lines. Flux's manifests
// label a controller's pods app=<controller> (the Flux Operator and the
// community chart also app.kubernetes.io/component=<controller>).
var fluxControllers = map[model.Engine]struct{ name, kind string }{
	model.EngineKustomization: {"kustomize-controller", "Kustomization"},
	model.EngineHelmRelease:   {"helm-controller", "HelmRelease"},
}

// controllerTargets are the pods of the controller that reconciles a Flux
// unit, the newest first, each narrowed to the lines about the unit.
func controllerTargets(ctx context.Context, c *kube.Cluster, k model.Key) ([]Target, error) {
	ctl := fluxControllers[k.Engine]
	about := &About{Kind: ctl.kind, Namespace: k.Namespace, Name: k.Name}
	why := ctl.name + ", the lines about " + about.String()
	for _, selector := range []string{"app=" + ctl.name, "app.kubernetes.io/component=" + ctl.name} {
		pods, err := c.Kube.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if apierrors.IsForbidden(err) {
			pods, err = c.Kube.CoreV1().Pods(fluxNamespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
		}
		if err != nil {
			return nil, fmt.Errorf("listing the pods of %s: %w", ctl.name, err)
		}
		var out []Target
		for i := range newestFirst(pods.Items) {
			t := podTarget(k.Context, &pods.Items[i], "manager", why)
			t.About = about
			out = append(out, t)
		}
		if len(out) > 0 {
			return out, nil
		}
	}
	return nil, fmt.Errorf("%s: %w: no pod labelled app=%s (in any namespace this identity may list, or in %s)", k.Ref(), ErrNoPod, ctl.name, fluxNamespace)
}

// About narrows a controller's log to the lines about one object, as
// `flux logs --kind --namespace --name` does.
type About struct{ Kind, Namespace, Name string }

func (a About) String() string { return a.Kind + " " + a.Namespace + "/" + a.Name }

// ParseLine reads one line of a Flux controller's structured (JSON) log:
// whether it is about the object, and the line as a person reads it. A
// line that is not JSON, or about another object, is not; a line cut at
// MaxLineBytes (a large apply's output) is matched by the fields it
// starts with and shown as it is.
func (a About) ParseLine(raw string) (string, bool) {
	// Most of a busy controller's lines are about other objects: one that
	// does not even hold the name quoted is not decoded.
	if !strings.Contains(raw, `"`+a.Name+`"`) {
		return "", false
	}
	e, ok := parseControllerLine(raw)
	if !ok {
		quoted := func(k, v string) string { b, _ := json.Marshal(v); return `"` + k + `":` + string(b) }
		if strings.Contains(raw, quoted("controllerKind", a.Kind)) && strings.Contains(raw, quoted("name", a.Name)) && strings.Contains(raw, quoted("namespace", a.Namespace)) {
			return raw, true
		}
		return "", false
	}
	if !strings.EqualFold(e.kind, a.Kind) || e.name != a.Name || e.namespace != a.Namespace {
		return "", false
	}
	return e.String(), true
}
