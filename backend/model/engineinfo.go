package model

import (
	"fmt"
	"slices"
	"strings"
)

// Review is how a unit's pending change is looked at before it is applied.
type Review int

const (
	// NoReview: the engine has nothing to look at before it applies.
	NoReview Review = iota
	// ReviewDiff: `driftdeck diff` (Argo CD's diff, a Kustomization's
	// local build, a Terraform's stored plan).
	ReviewDiff
	// ReviewPreview: `driftdeck preview` runs the pulumi CLI.
	ReviewPreview
	// ReviewPlan: `driftdeck plan` runs tofu plan and saves the plan file
	// an apply then applies.
	ReviewPlan
)

// EngineInfo is what every layer may know of an engine, as plain data: its
// names on the command line and on screen, and what it offers to read.
// backend/engines adds where its units live in the Kubernetes API and how
// they are read; the action table (backend/actions) says what is written.
type EngineInfo struct {
	Engine Engine
	// Scope is the ":" command that narrows the list to the engine's units.
	Scope string
	// Aliases are the other names the command line and the ":" prompt
	// accept, the shortest first.
	Aliases []string
	// Label names the engine in at most 7 cells (the list's ENGINE column),
	// as the flux CLI and tfctl abbreviate them.
	Label string
	// Units names its units in the plural ("Argo CD Applications").
	Units string
	// Controller names what reconciles the units, in a context's notice of
	// what is not installed.
	Controller string
	// Example is a unit reference for help texts.
	Example string
	// HasLog: a pod's log says what the units are doing: a Stack's
	// workspace, an Argo CD operation's hooks, a Terraform's runner, the
	// Flux controller's lines about a Flux unit.
	HasLog bool
	// ResourceTree: the units have a tree of the live objects they manage
	// (an Argo CD Application's resources, a Kustomization's inventory).
	ResourceTree bool
	Review       Review
}

// engineInfos is in Engines order, then the ApplicationSet.
var engineInfos = []EngineInfo{
	{Engine: EngineArgoCD, Scope: "apps", Aliases: []string{"app", "argo", "application", "applications"}, Label: "argocd", Units: "Argo CD Applications",
		Controller: "Argo CD", Example: "argocd/argocd/guestbook", HasLog: true, ResourceTree: true, Review: ReviewDiff},
	{Engine: EnginePulumi, Scope: "stacks", Aliases: []string{"stack"}, Label: "pulumi", Units: "Pulumi Stacks",
		Controller: "the Pulumi operator", Example: "pulumi/infra/network-prod", HasLog: true, Review: ReviewPreview},
	{Engine: EngineKustomization, Scope: "kustomizations", Aliases: []string{"ks"}, Label: "flux ks", Units: "Flux Kustomizations",
		Controller: "Flux's kustomize-controller", Example: "kustomization/team-web/web-backend", HasLog: true, ResourceTree: true, Review: ReviewDiff},
	{Engine: EngineHelmRelease, Scope: "helmreleases", Aliases: []string{"hr"}, Label: "flux hr", Units: "Flux HelmReleases",
		Controller: "Flux's helm-controller", Example: "helmrelease/team-payments/api", HasLog: true, ResourceTree: true, Review: ReviewDiff},
	{Engine: EngineTerraform, Scope: "terraform", Aliases: []string{"tf", "tofu", "terraforms"}, Label: "tofu tf", Units: "tofu-controller Terraforms",
		Controller: "tofu-controller", Example: "terraform/flux-system/eks-cluster", HasLog: true, Review: ReviewDiff},
	{Engine: EngineRoot, Scope: "roots", Aliases: []string{"root", "modules"}, Label: "tf root", Units: "Terraform root modules",
		Controller: "tofu", Example: "root/default/network", Review: ReviewPlan},
	{Engine: EngineApplicationSet, Scope: "appsets", Aliases: []string{"appset", "applicationsets"}, Label: "appset", Units: "Argo CD ApplicationSets",
		Controller: "Argo CD's ApplicationSet controller", Example: "applicationset/argocd/storefront"},
}

// EngineInfos lists every engine's description: the engines that reconcile
// in Engines order, then the ApplicationSet.
func EngineInfos() []EngineInfo { return slices.Clone(engineInfos) }

// InfoOf describes an engine; an unknown one gets its own name as label.
func InfoOf(e Engine) EngineInfo {
	for _, info := range engineInfos {
		if info.Engine == e {
			return info
		}
	}
	return EngineInfo{Engine: e, Label: string(e), Units: string(e) + " units", Controller: string(e)}
}

// ParseEngine accepts the engine names of the command line and their aliases.
func ParseEngine(s string) (Engine, error) {
	s = strings.ToLower(s)
	var names []string
	for _, info := range engineInfos {
		if s == string(info.Engine) || s == info.Scope || slices.Contains(info.Aliases, s) {
			return info.Engine, nil
		}
		names = append(names, string(info.Engine))
	}
	return "", fmt.Errorf("unknown engine %q (want one of %s)", s, strings.Join(names, ", "))
}
