package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/cli"
	"helm.sh/helm/v3/pkg/cli/values"
	"helm.sh/helm/v3/pkg/getter"
	"helm.sh/helm/v3/pkg/release"

	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/localrender"
)

// helmTemplate renders the chart in chartDir (inside the checkout root) as
// `helm template` does with the flags the Argo CD repo-server passes:
// manifests first (the crds/ directory's too with IncludeCRDs), then hooks,
// test hooks left out with SkipTests. It also returns the chart's name and
// version.
func helmTemplate(ctx context.Context, root, chartDir string, h localrender.HelmChart) ([]map[string]any, string, error) {
	ch, err := loader.Load(chartDir)
	if err != nil {
		return nil, "", fmt.Errorf("loading the chart: %w", err)
	}
	objs, err := templateChart(ctx, ch, root, chartDir, h)
	return objs, ch.Name() + " " + ch.Metadata.Version, err
}

func templateChart(ctx context.Context, ch *chart.Chart, root, chartDir string, h localrender.HelmChart) ([]map[string]any, error) {
	if t := ch.Metadata.Type; t != "" && t != "application" {
		return nil, fmt.Errorf("chart %s is of type %q and cannot be rendered", ch.Name(), t)
	}
	if deps := ch.Metadata.Dependencies; deps != nil {
		if err := action.CheckDependencies(ch, deps); err != nil {
			return nil, unsupported(fmt.Sprintf("a chart whose dependencies are not in its charts/ directory (%v; the repo-server runs `helm dependency build`)", err))
		}
	}
	vals, err := helmValues(root, chartDir, h)
	if err != nil {
		return nil, err
	}
	install := action.NewInstall(&action.Configuration{Log: func(string, ...any) {}})
	install.DryRun = true
	install.ClientOnly = true
	install.Replace = true
	install.ReleaseName = h.ReleaseName
	if install.ReleaseName == "" {
		install.ReleaseName = "release-name" // helm template's
	}
	install.Namespace = h.Namespace
	if install.Namespace == "" {
		install.Namespace = "default"
	}
	install.IncludeCRDs = h.IncludeCRDs
	install.SkipSchemaValidation = h.SkipSchemaValidation
	install.APIVersions = chartutil.VersionSet(h.APIVersions)
	if h.KubeVersion != "" {
		kv, err := chartutil.ParseKubeVersion(h.KubeVersion)
		if err != nil {
			return nil, fmt.Errorf("kube version %q: %w", h.KubeVersion, err)
		}
		install.KubeVersion = kv
	}
	rel, err := install.RunWithContext(ctx, ch, vals)
	if err != nil {
		return nil, fmt.Errorf("helm template: %w", err)
	}
	var out bytes.Buffer
	out.WriteString(rel.Manifest)
	for _, hook := range rel.Hooks {
		if h.SkipTests && isTestHook(hook) {
			continue
		}
		fmt.Fprintf(&out, "\n---\n# Source: %s\n%s\n", hook.Path, hook.Manifest)
	}
	objs, err := diff.Parse(out.Bytes())
	if err != nil {
		return nil, fmt.Errorf("helm template output: %w", err)
	}
	return objs, nil
}

func isTestHook(h *release.Hook) bool {
	for _, e := range h.Events {
		if e == release.HookTest {
			return true
		}
	}
	return false
}

// helmValues merges the values as helm does for --values, --set,
// --set-string and --set-file, in that order.
func helmValues(root, chartDir string, h localrender.HelmChart) (map[string]any, error) {
	var opts values.Options
	subst := envsubst(h.Env)
	resolve := func(f string) (string, bool, error) {
		if ref, rest, ok := refPath(f); ok {
			// The ref is resolved first, the rest substituted after, as the
			// repo-server does.
			refRoot, ok := h.RefRoots[ref]
			if !ok {
				return "", false, fmt.Errorf("%s names no ref source of the Application", f)
			}
			return valueFilePath(refRoot, refRoot, "/"+subst(rest))
		}
		return valueFilePath(root, chartDir, subst(f))
	}
	for _, f := range h.ValueFiles {
		path, remote, err := resolve(f)
		if err != nil {
			return nil, err
		}
		if !remote && !exists(path) {
			if h.IgnoreMissingValueFiles {
				continue
			}
			return nil, fmt.Errorf("values file %s does not exist in the repository", f)
		}
		opts.ValueFiles = append(opts.ValueFiles, path)
	}
	if h.Values != "" {
		tmp, err := os.CreateTemp("", "driftdeck-values-*.yaml")
		if err != nil {
			return nil, err
		}
		defer os.Remove(tmp.Name())
		_, err = tmp.WriteString(h.Values)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
		opts.ValueFiles = append(opts.ValueFiles, tmp.Name())
	}
	for _, p := range h.Parameters {
		set := p.Name + "=" + escapeSetValue(subst(p.Value))
		if p.ForceString {
			opts.StringValues = append(opts.StringValues, set)
		} else {
			opts.Values = append(opts.Values, set)
		}
	}
	for _, p := range h.FileParameters {
		path, _, err := resolve(p.Value)
		if err != nil {
			return nil, err
		}
		opts.FileValues = append(opts.FileValues, p.Name+"="+path)
	}
	vals, err := opts.MergeValues(getter.All(cli.New()))
	if err != nil {
		return nil, fmt.Errorf("reading the values: %w", err)
	}
	return vals, nil
}

// refPath splits "$name/path" (a file of a ref source) into its parts.
func refPath(f string) (ref, rest string, ok bool) {
	if !strings.HasPrefix(f, "$") {
		return "", "", false
	}
	ref, rest, _ = strings.Cut(f[1:], "/")
	return ref, rest, ref != ""
}

// usedRefs are the ref sources the chart's files name.
func usedRefs(h localrender.HelmChart) []string {
	var out []string
	for _, f := range h.ValueFiles {
		if ref, _, ok := refPath(f); ok && !slices.Contains(out, ref) {
			out = append(out, ref)
		}
	}
	for _, p := range h.FileParameters {
		if ref, _, ok := refPath(p.Value); ok && !slices.Contains(out, ref) {
			out = append(out, ref)
		}
	}
	return out
}

// envsubst substitutes $VAR and ${VAR} of env as Argo CD does (unknown
// ones become empty, $$ is a $); a nil env substitutes nothing.
func envsubst(env map[string]string) func(string) string {
	if env == nil {
		return func(s string) string { return s }
	}
	return func(s string) string {
		return os.Expand(s, func(name string) string {
			if name == "$" {
				return "$"
			}
			return env[name]
		})
	}
}

// withRevision adds the revision variables of Argo CD's build environment.
func withRevision(env map[string]string, revision string) map[string]string {
	if env == nil {
		return nil
	}
	out := maps.Clone(env)
	out["ARGOCD_APP_REVISION"] = revision
	out["ARGOCD_APP_REVISION_SHORT"] = revision[:min(len(revision), 7)]
	out["ARGOCD_APP_REVISION_SHORT_8"] = revision[:min(len(revision), 8)]
	return out
}

// escapeSetValue escapes a parameter's commas as the repo-server does, so
// that it stays one value; a {a,b} list and an already escaped comma are
// left as written.
func escapeSetValue(v string) string {
	if strings.HasPrefix(v, "{") && strings.HasSuffix(v, "}") {
		return v
	}
	var b strings.Builder
	var prev rune
	for _, r := range v {
		if r == ',' && prev != '\\' {
			b.WriteString(`\,`)
		} else {
			b.WriteRune(r)
		}
		prev = r
	}
	return b.String()
}

// valueFilePath resolves a values file as the repo-server does: an http(s)
// URL stays one; a path starting with / is relative to the repository
// root, any other to the chart directory; neither may leave the checkout.
func valueFilePath(root, chartDir, f string) (path string, remote bool, err error) {
	if strings.HasPrefix(f, "https://") || strings.HasPrefix(f, "http://") {
		return f, true, nil
	}
	if root == "" {
		return "", false, errors.New("values file " + f + ": a chart from a Helm repository has no files of its own to read values from")
	}
	if filepath.IsAbs(f) {
		path = filepath.Join(root, filepath.FromSlash(f))
	} else {
		path = filepath.Join(chartDir, filepath.FromSlash(f))
	}
	if !inside(root, path) {
		return "", false, fmt.Errorf("values file %s leaves the repository", f)
	}
	return path, false, nil
}
