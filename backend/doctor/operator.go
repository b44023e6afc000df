package doctor

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
)

// operatorLabels find the Pulumi operator's Deployment: 2.x's manifests and
// chart label it app.kubernetes.io/name, 1.x's name.
var operatorLabels = []string{"app.kubernetes.io/name=pulumi-kubernetes-operator", "name=pulumi-kubernetes-operator"}

// CheckPulumiOperator finds the contexts whose Stacks nothing reconciles:
// no Deployment of the Pulumi operator, or none with a ready replica, or
// an operator 2.x whose Workspace and Update resources are not served. Each is one finding for the context (a Key with no name).
// unchecked says where the Deployments could not be listed.
func CheckPulumiOperator(ctx context.Context, units []*model.Unit, cluster func(string) (*kube.Cluster, bool)) (findings []Finding, unchecked []string) {
	var contexts []string
	for _, u := range units {
		if u.Key.Engine == model.EnginePulumi && !slices.Contains(contexts, u.Key.Context) {
			contexts = append(contexts, u.Key.Context)
		}
	}
	slices.Sort(contexts)
	for _, name := range contexts {
		c, ok := cluster(name)
		if !ok {
			continue
		}
		key := model.Key{Context: name, Engine: model.EnginePulumi}
		deps, err := operatorDeployments(ctx, c)
		switch {
		case apierrors.IsForbidden(err):
			unchecked = append(unchecked, "you may not list Deployments in every namespace of context "+name+" (RBAC): whether the Pulumi operator runs there was not checked")
			continue
		case err != nil:
			unchecked = append(unchecked, fmt.Sprintf("the Pulumi operator's Deployment in context %s: %v", name, err))
			continue
		case len(deps) == 0:
			findings = append(findings, Finding{Key: key, State: "operator not running",
				Cause: "no Deployment of the Pulumi Kubernetes Operator (labelled " + operatorLabels[0] + " or " + operatorLabels[1] + "): no Stack of this context is reconciled",
				Hint:  "install the operator, or find why it was removed; its Stacks wait until it runs"})
			continue
		}
		if d := deps[0]; !anyReady(deps) {
			findings = append(findings, Finding{Key: key, State: "operator not running",
				Cause: fmt.Sprintf("Deployment %s/%s of the Pulumi operator has no ready replica (%d wanted): no Stack of this context is reconciled", d.Namespace, d.Name, replicas(d)),
				Hint:  "see why its pod does not start: kubectl describe deployment " + d.Name + " -n " + d.Namespace})
		}
		if v := operatorMajor(deps[0]); v >= 2 {
			if missing := unserved(c, pulumiop.Workspaces, pulumiop.Updates); len(missing) > 0 {
				findings = append(findings, Finding{Key: key, State: "operator CRDs missing",
					Cause: fmt.Sprintf("the Pulumi operator %d.x runs, but %s not served: it cannot run a Stack's program", v, strings.Join(missing, " and ")),
					Hint:  "install the CRDs of the operator's release (its crds), then retry the Stacks"})
			}
		}
	}
	return findings, unchecked
}

func operatorDeployments(ctx context.Context, c *kube.Cluster) ([]appsv1.Deployment, error) {
	for _, sel := range operatorLabels {
		list, err := c.Kube.AppsV1().Deployments(metav1.NamespaceAll).List(ctx, metav1.ListOptions{LabelSelector: sel})
		if err != nil {
			return nil, err
		}
		if len(list.Items) > 0 {
			return list.Items, nil
		}
	}
	return nil, nil
}

func anyReady(deps []appsv1.Deployment) bool {
	return slices.ContainsFunc(deps, func(d appsv1.Deployment) bool { return d.Status.ReadyReplicas > 0 })
}

func replicas(d appsv1.Deployment) int32 {
	if d.Spec.Replicas == nil {
		return 1
	}
	return *d.Spec.Replicas
}

// operatorMajor is the major version of the operator's image tag
// (pulumi/pulumi-kubernetes-operator:v2.0.0 is 2); 0 when unknown.
func operatorMajor(d appsv1.Deployment) int {
	for _, c := range d.Spec.Template.Spec.Containers {
		if !strings.Contains(c.Image, "pulumi-kubernetes-operator") {
			continue
		}
		_, tag, _ := strings.Cut(c.Image[strings.LastIndex(c.Image, "/")+1:], ":")
		major, _, _ := strings.Cut(strings.TrimPrefix(tag, "v"), ".")
		if n, err := strconv.Atoi(major); err == nil {
			return n
		}
	}
	return 0
}

// unserved names the resources the cluster does not serve.
func unserved(c *kube.Cluster, gvrs ...schema.GroupVersionResource) []string {
	var out []string
	for _, gvr := range gvrs {
		list, err := c.Kube.Discovery().ServerResourcesForGroupVersion(gvr.GroupVersion().String())
		if err == nil && slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == gvr.Resource }) {
			continue
		}
		if err != nil && !apierrors.IsNotFound(err) {
			continue // not known: not a finding
		}
		out = append(out, gvr.Resource+"."+gvr.Group)
	}
	return out
}
