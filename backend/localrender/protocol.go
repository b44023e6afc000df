package localrender

// The protocol: driftdeck writes one Request as a line of JSON to the
// helper's input and keeps that input open; closing it stops the work. The
// helper writes one Reply and exits.

// ProtocolVersion changes whenever Request or Reply change meaning.
const ProtocolVersion = 1

// The operations a Request asks for.
const (
	OpArgo  = "argo"  // check out Repo at Revision and render Argo
	OpFlux  = "flux"  // check out Repo at Revision and build Flux
	OpClone = "clone" // clone Clone.Repo into Clone.Dest
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
}

// ArgoSource is what an Argo CD Application's spec.source says about its
// files, once driftdeck has refused what only the server renders.
type ArgoSource struct {
	Path             string
	Recurse          bool
	Include, Exclude string // spec.source.directory globs
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
	// Commit is the revision checked out; set once the checkout succeeded,
	// even when the render then failed.
	Commit  string           `json:",omitempty"`
	Objects []map[string]any `json:",omitempty"`
	Error   string           `json:",omitempty"`
	// Unsupported is set instead of Error when the source holds something
	// the local render cannot reproduce: what it is.
	Unsupported string `json:",omitempty"`
}
