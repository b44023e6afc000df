package engine

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/localrender"
)

func unsupported(what string) error { return &localrender.UnsupportedError{What: what} }

// kustomizationNames are the file names that make a directory a
// kustomization, as Argo CD detects them.
var kustomizationNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// manifestFile is the names a directory source reads (Argo CD's pattern).
var manifestFile = regexp.MustCompile(`^.*\.(yaml|yml|json|jsonnet)$`)

// skipMarker in a file keeps a directory source from rendering it.
const skipMarker = "+argocd:skip-file-rendering"

// render produces the source's objects from a checkout at root, detecting
// the source type as Argo CD does from the files directly in the path.
func render(ctx context.Context, root string, s localrender.ArgoSource) ([]map[string]any, error) {
	appDir := filepath.Join(root, filepath.FromSlash(s.Path))
	if !inside(root, appDir) {
		return nil, fmt.Errorf("spec.source.path %q leaves the repository", s.Path)
	}
	fi, err := os.Stat(appDir)
	if err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("spec.source.path %q is not a directory in the repository", s.Path)
	}
	if exists(filepath.Join(appDir, "Chart.yaml")) {
		var h localrender.HelmChart
		if s.Helm != nil {
			h = *s.Helm
		}
		objs, _, err := helmTemplate(ctx, root, appDir, h)
		return objs, err
	}
	if hasKustomization(appDir) {
		return buildKustomization(appDir)
	}
	return renderDirectory(root, appDir, s)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// buildKustomization builds the kustomization with kustomize's defaults, as
// `kustomize build` does (no plugins, no Helm, files only from under the
// kustomization root except resources).
func buildKustomization(appDir string) ([]map[string]any, error) {
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	resMap, err := k.Run(filesys.MakeFsOnDisk(), appDir)
	if err != nil {
		return nil, fmt.Errorf("kustomize build: %w", err)
	}
	out, err := resMap.AsYaml()
	if err != nil {
		return nil, fmt.Errorf("kustomize build: %w", err)
	}
	objs, err := diff.Parse(out)
	if err != nil {
		return nil, fmt.Errorf("kustomize build output: %w", err)
	}
	return objs, nil
}

// renderDirectory reads the manifests of a directory source: .yaml, .yml and
// .json files, in subdirectories only with recurse, filtered by the include
// and exclude globs (matched against the path relative to the source path).
func renderDirectory(root, appDir string, s localrender.ArgoSource) ([]map[string]any, error) {
	include, err := compileGlob(s.Include)
	if err != nil {
		return nil, fmt.Errorf("spec.source.directory.include: %w", err)
	}
	exclude, err := compileGlob(s.Exclude)
	if err != nil {
		return nil, fmt.Errorf("spec.source.directory.exclude: %w", err)
	}
	var files []string
	err = filepath.WalkDir(appDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != appDir && !s.Recurse {
				return filepath.SkipDir
			}
			return nil
		}
		if !manifestFile.MatchString(d.Name()) {
			return nil
		}
		rel, _ := filepath.Rel(appDir, path)
		rel = filepath.ToSlash(rel)
		if (exclude != nil && exclude.MatchString(rel)) || (include != nil && !include.MatchString(rel)) {
			return nil
		}
		files = append(files, path)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	var objs []map[string]any
	for _, path := range files {
		rel, _ := filepath.Rel(root, path)
		got, err := readManifestFile(root, path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.ToSlash(rel), err)
		}
		objs = append(objs, got...)
	}
	return objs, nil
}

// readManifestFile reads one file of a directory source. A YAML file that
// does not parse, or holds no Kubernetes object, is skipped unless it looks
// like a manifest (apiVersion, kind and metadata all appear), as in Argo CD.
func readManifestFile(root, path string) ([]map[string]any, error) {
	resolved, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, err
	}
	if !inside(root, resolved) {
		return nil, fmt.Errorf("symbolic link points outside the repository")
	}
	if strings.HasSuffix(path, ".jsonnet") {
		return nil, unsupported("a Jsonnet file in a directory source")
	}
	data, err := os.ReadFile(resolved)
	if err != nil {
		return nil, err
	}
	if bytes.Contains(data, []byte(skipMarker)) {
		return nil, nil
	}
	objs, err := diff.Parse(data)
	if err == nil {
		for _, o := range objs {
			if o["apiVersion"] == nil || o["kind"] == nil {
				err = fmt.Errorf("a document has no apiVersion or kind")
				break
			}
		}
	}
	if err != nil {
		if looksLikeManifest(data) {
			return nil, err
		}
		return nil, nil
	}
	return objs, nil
}

func looksLikeManifest(data []byte) bool {
	return bytes.Contains(data, []byte("apiVersion:")) && bytes.Contains(data, []byte("kind:")) && bytes.Contains(data, []byte("metadata:"))
}

// compileGlob turns an Argo CD directory glob into a regular expression: *
// matches anything (slashes too), ? one character, {a,b} either alternative,
// [...] a character class. Empty means no filter.
func compileGlob(glob string) (*regexp.Regexp, error) {
	if glob == "" {
		return nil, nil
	}
	var b strings.Builder
	b.WriteString("^")
	depth := 0
	for i := 0; i < len(glob); i++ {
		switch c := glob[i]; c {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '{':
			depth++
			b.WriteString("(?:")
		case '}':
			if depth == 0 {
				return nil, fmt.Errorf("unbalanced } in %q", glob)
			}
			depth--
			b.WriteString(")")
		case ',':
			if depth > 0 {
				b.WriteString("|")
			} else {
				b.WriteString(",")
			}
		case '[':
			end := strings.IndexByte(glob[i:], ']')
			if end < 0 {
				return nil, fmt.Errorf("unterminated [ in %q", glob)
			}
			class := glob[i+1 : i+end]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + class + "]")
			i += end
		case '\\':
			if i+1 < len(glob) {
				i++
				b.WriteString(regexp.QuoteMeta(glob[i : i+1]))
			}
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("unbalanced { in %q", glob)
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}
