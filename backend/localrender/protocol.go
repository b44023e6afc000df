package localrender

// The protocol: driftdeck writes one Request as a line of JSON to the
// helper's input and keeps that input open; closing it stops the work. The
// helper writes one Reply and exits.

// ProtocolVersion changes whenever Request or Reply change meaning.
const ProtocolVersion = 2

// The operations a Request asks for.
const (
	OpArgo  = "argo"  // check out Repo at Revision and render Argo
	OpFlux  = "flux"  // check out Repo at Revision and build Flux
	OpClone = "clone" // clone Clone.Repo into Clone.Dest
	// OpHelm templates Helm.Chart from the Helm repository Repo (Revision
	// is its version or a semver range), or the chart at Helm.Path in the
	// checkout of the git repository Repo at Revision.
	OpHelm = "helm"
)

// Request is what driftdeck asks the helper to do.
type Request struct {
	Protocol int
	Op       string
	// Repo and Revision are the source of OpArgo and OpFlux: a URL or a
	// local path, and a branch, tag or commit ("" or HEAD: the default
	// branch).
	Repo, Revision string
	// CacheDir holds the clones; "" is the user cache.
	CacheDir string
	Argo     *ArgoSource    `json:",omitempty"`
	Flux     map[string]any `json:",omitempty"` // the Kustomization's spec
	Clone    *CloneSource   `json:",omitempty"`
	Helm     *HelmChart     `json:",omitempty"`
}

// ArgoSource is what an Argo CD Application's spec.source says about its
// files, once driftdeck has refused what only the server renders.
type ArgoSource struct {
	Path             string
	Recurse          bool
	Include, Exclude string // spec.source.directory globs
	// Helm is how a chart at Path is templated (Argo CD renders every
	// directory holding a Chart.yaml with helm); nil: Helm's defaults.
	Helm *HelmChart `json:",omitempty"`
}

// HelmChart is a `helm template` run: the chart, and the settings the
// reconciler gives it (the Argo CD repo-server's flags, or helm-controller's
// values for a HelmRelease).
type HelmChart struct {
	// Chart names a chart of a Helm repository (OpHelm); "" for the chart
	// directory Path of a git checkout.
	Chart string `json:",omitempty"`
	Path  string `json:",omitempty"`
	// ReleaseName and Namespace are .Release.Name and .Release.Namespace
	// ("" Namespace: "default", as helm's).
	ReleaseName, Namespace string
	// KubeVersion ("1.37") and APIVersions ("apps/v1", "apps/v1/Deployment")
	// are the destination cluster's, as the Argo CD controller passes them.
	KubeVersion string   `json:",omitempty"`
	APIVersions []string `json:",omitempty"`
	// ValueFiles are read in order: relative to the chart directory, or to
	// the repository root when they start with /.
	ValueFiles              []string `json:",omitempty"`
	IgnoreMissingValueFiles bool     `json:",omitempty"`
	// Values (YAML) apply after the files: spec.source.helm.values or
	// valuesObject, or a HelmRelease's merged values.
	Values string `json:",omitempty"`
	// Parameters are --set (--set-string when ForceString), FileParameters
	// --set-file with a path like ValueFiles'.
	Parameters     []HelmParameter `json:",omitempty"`
	FileParameters []HelmParameter `json:",omitempty"`
	// IncludeCRDs renders the chart's crds/ directory too (Argo CD, unless
	// skipCrds); a release's manifest holds none.
	IncludeCRDs          bool `json:",omitempty"`
	SkipTests            bool `json:",omitempty"`
	SkipSchemaValidation bool `json:",omitempty"`
	// Refs are a multi-source Application's ref sources by name: a value
	// file or file parameter "$name/path" reads path of that repository at
	// that revision.
	Refs map[string]RefSource `json:",omitempty"`
	// RefRoots is where the helper checked each ref out (its own use).
	RefRoots map[string]string `json:"-"`
	// Env is the Argo CD build environment ($ARGOCD_APP_NAME, ...),
	// substituted in parameters and value file paths as the repo-server
	// does; the helper adds ARGOCD_APP_REVISION and its short forms once it
	// has checked out. nil: no substitution (helm-controller makes none).
	Env map[string]string `json:",omitempty"`
}

// RefSource is a git repository at a revision (a branch, tag or commit).
type RefSource struct{ Repo, Revision string }

// HelmParameter is one --set, --set-string or --set-file.
type HelmParameter struct {
	Name, Value string
	ForceString bool `json:",omitempty"`
}

// CloneSource is a repository to clone into Dest, a directory that does not
// exist yet or is empty: a Commit is checked out, else the tip of Branch
// ("" is the remote's HEAD) in a shallow clone.
type CloneSource struct {
	Repo, Commit, Branch, Dest string
	Token                      string // HTTPS token (sent over the pipe, never logged)
}

// Reply is the helper's answer.
type Reply struct {
	// Commit is the revision checked out (the chart's version for a chart
	// of a Helm repository); set once the checkout succeeded, even when the
	// render then failed.
	Commit string `json:",omitempty"`
	// Chart is the chart rendered by OpHelm: its name and version.
	Chart   string           `json:",omitempty"`
	Objects []map[string]any `json:",omitempty"`
	Error   string           `json:",omitempty"`
	// Unsupported is set instead of Error when the source holds something
	// the local render cannot reproduce: what it is.
	Unsupported string `json:",omitempty"`
}
