package ui

import (
	"slices"
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/model"
)

func shownEngines(a *App) []model.Engine {
	var out []model.Engine
	for _, u := range a.list().m.Shown() {
		if !slices.Contains(out, u.Key.Engine) {
			out = append(out, u.Key.Engine)
		}
	}
	slices.Sort(out)
	return out
}

// The : scopes narrow the list to one engine or to Flux's two, and the
// header says which.
func TestFluxAndTerraformScopes(t *testing.T) {
	a := newFluxTestApp(t, 120, 30)
	for _, c := range []struct {
		command string
		want    []model.Engine
		header  string
	}{
		{"flux", []model.Engine{model.EngineHelmRelease, model.EngineKustomization}, ":flux"},
		{"terraform", []model.Engine{model.EngineTerraform}, ":terraform"},
		{"tf", []model.Engine{model.EngineTerraform}, ":terraform"},
		{"ks", []model.Engine{model.EngineKustomization}, ":kustomization"},
		{"helmreleases", []model.Engine{model.EngineHelmRelease}, ":helmrelease"},
		{"apps", []model.Engine{model.EngineArgoCD}, ":argocd"},
		{"all", []model.Engine{model.EngineArgoCD, model.EngineHelmRelease, model.EngineKustomization, model.EnginePulumi, model.EngineTerraform}, "sort state"},
	} {
		press(a, ":")
		typeText(a, c.command)
		press(a, "enter")
		if got := shownEngines(a); !slices.Equal(got, c.want) {
			t.Errorf(":%s shows %v, want %v", c.command, got, c.want)
		}
		if header := strings.Split(plain(a), "\n")[1]; !strings.Contains(header, c.header) {
			t.Errorf(":%s: the header does not say %q: %q", c.command, c.header, header)
		}
	}
	// A state scope keeps the engine family: stuck Flux units only.
	press(a, ":")
	typeText(a, "flux")
	press(a, "enter", ":")
	typeText(a, "stuck")
	press(a, "enter")
	var names []string
	for _, u := range a.list().m.Shown() {
		names = append(names, u.Key.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"kube-prometheus-stack", "web-frontend"}) {
		t.Errorf(":flux then :stuck shows %v, want the failing Kustomization and the exhausted HelmRelease", names)
	}
}

// Tab completes the new scopes in the command bar.
func TestTabCompletesFluxAndTerraformScopes(t *testing.T) {
	for typed, want := range map[string]string{"fl": "flux", "terr": "terraform", "kus": "kustomizations", "helm": "helmreleases"} {
		a := newFluxTestApp(t, 120, 30)
		press(a, ":")
		typeText(a, typed)
		press(a, "tab")
		if got := a.bar.input.Value(); got != want {
			t.Errorf("%q + tab = %q, want %q", typed, got, want)
		}
		press(a, "enter")
		if len(a.list().m.Shown()) == 0 {
			t.Errorf(":%s shows nothing", want)
		}
	}
}

// The ENGINE column names the Flux and tofu kinds readably, whole.
func TestListNamesFluxAndTofuEnginesWhole(t *testing.T) {
	a := newFluxTestApp(t, 120, 30)
	screen := plain(a)
	for _, row := range []string{"flux ks team-web/web-frontend", "flux hr monitoring/kube-prometheus-s", "tofu tf flux-system/eks-cluster"} {
		if !strings.Contains(screen, row) {
			t.Errorf("the list lacks %q:\n%s", row, screen)
		}
	}
	// The label is searchable too.
	press(a, "/")
	typeText(a, "tofu")
	press(a, "enter")
	if got := shownEngines(a); !slices.Equal(got, []model.Engine{model.EngineTerraform}) {
		t.Errorf("/tofu shows %v", got)
	}
}

// Opening a Terraform shows its pending plan by its full id, the mode and
// the rule; a HelmRelease its history and remediation; a Kustomization its
// revisions, source, dependency and request.
func TestDetailShowsFluxAndTofuInTheirOwnWords(t *testing.T) {
	for name, wants := range map[string][]string{
		"eks-cluster": {"pending " + fullPlanID + " waits for approval", "spec.approvePlan is set to the full id " + fullPlanID,
			"mode manual approval", "drift check on", "readable plan: human", "Unknown: TerraformPlannedWithChanges"},
		"rds-postgres":          {"lock held: f2ab685b-f84d-ac0b-a125-378a22877e8d", "force-unlock it"},
		"iam-roles":             {"drift detection only (approvePlan: disable)", "drift drift found 3m ago"},
		"kube-prometheus-stack": {"upgrade 3 failure(s) of 3 allowed retries", "retries exhausted", "v9 failed kube-prometheus-stack@65.1.0", "v8 deployed kube-prometheus-stack@62.7.0", "Stalled True RetriesExceeded"},
		"web-frontend": {"attempted main@sha1:c936fd63af42a152060a49c15cd4f2153c7dba02", "applied main@sha1:1f0e2d3c4b5a69788796a5b4c3d2e1f000112233 (not the attempted one)",
			"reconcile requested 2026-11-29T03:10:00Z -> handled", `\x1b]0;pwned\x07`, "longer than the 10m threshold"},
		"web-backend": {"depends on team-web/web-frontend not ready", "dependency 'team-web/web-frontend' is not ready", "requested req-2 -> not handled yet (last handled req-1)"},
		"web-config":  {"source GitRepository/team-web/web-config not ready", "Source artifact not found, retrying in 30s"},
	} {
		a := newFluxTestApp(t, 110, 60)
		selectUnit(t, a, name)
		press(a, "enter")
		screen := flat(a)
		if strings.Contains(a.View().Content, "\x1b]0;") {
			t.Fatalf("%s: an escape sequence from the cluster reached the terminal", name)
		}
		for _, w := range wants {
			if !strings.Contains(screen, w) {
				t.Errorf("%s: the detail lacks %q:\n%s", name, w, plain(a))
			}
		}
	}
}

// The notice of engines a context lacks names them, whatever the number.
func TestMissingEnginesNoticeNamesThem(t *testing.T) {
	why := map[model.Engine]string{
		model.EngineArgoCD: "Argo CD is not installed (no applications.argoproj.io)", model.EnginePulumi: "the Pulumi operator is not installed (no stacks.pulumi.com)",
		model.EngineKustomization: "k", model.EngineHelmRelease: "h", model.EngineTerraform: "t",
	}
	missing := func(es ...model.Engine) map[string]string {
		m := map[string]string{}
		for _, e := range es {
			m[string(e)] = why[e]
		}
		return m
	}
	for _, c := range []struct {
		missing map[string]string
		want    string
		none    bool
	}{
		{missing(), "", false},
		{missing(model.EnginePulumi), why[model.EnginePulumi], false},
		{missing(model.EngineArgoCD, model.EnginePulumi), "not installed here: Argo CD, the Pulumi operator", false},
		{missing(model.EnginePulumi, model.EngineKustomization, model.EngineHelmRelease, model.EngineTerraform), "not installed here: the Pulumi operator, Flux, tofu-controller", false},
		{missing(model.EngineArgoCD, model.EngineHelmRelease), "not installed here: Argo CD, Flux's helm-controller", false},
		{missing(model.Engines...), "none of Argo CD, the Pulumi operator, Flux or tofu-controller is installed here", true},
	} {
		got, none := missingNotice(c.missing)
		if got != c.want || none != c.none {
			t.Errorf("missing %v: %q (none %v), want %q (none %v)", c.missing, got, none, c.want, c.none)
		}
	}
}

func TestGoldenFlux(t *testing.T) {
	a := newFluxTestApp(t, 100, 24)
	press(a, ":")
	typeText(a, "flux")
	press(a, "enter")
	golden(t, "list-flux-100x24", a)
	press(a, ":")
	typeText(a, "terraform")
	press(a, "enter")
	selectUnit(t, a, "eks-cluster")
	a.Update(teaSize(100, 44))
	press(a, "enter")
	golden(t, "detail-terraform-100x44", a)
	press(a, "esc", ":")
	typeText(a, "hr")
	press(a, "enter", "enter")
	golden(t, "detail-helmrelease-100x44", a)
}
