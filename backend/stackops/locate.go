// Package stackops does what driftdeck does to a Pulumi stack outside
// Kubernetes: it finds the stack's program, state backend and environment,
// streams previews and applies a reviewed plan, and unsticks a stack left
// locked or with pending operations by a run that died. Every change passes
// the same write guard as the Kubernetes writes (writeguard): read-only,
// dry-run, reason, permission to patch the Stack, the audit line and an
// Event on the Stack; refusals are the same typed errors.
package stackops

import (
	"context"
	"fmt"
	"os"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/driftdeck/driftdeck/backend/config"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/objread"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/pulumistate"
	"github.com/driftdeck/driftdeck/backend/writeguard"
)

// Location is where a stack's program and state are.
type Location struct {
	Key     model.Key
	Stack   string // the Pulumi stack name as the CLI takes it
	Backend string // state backend URL
	Ref     pulumistate.StackRef
	// Local is the user's mapping of this Stack to a program on this
	// machine (config.yaml stacks:), nil when the program comes from git.
	Local                         *config.StackProgram
	Repo, Commit, Branch, RepoDir string
}

// Locate reads the Stack object and the user's mapping and says where its
// program and state are.
func (o *Ops) Locate(ctx context.Context, k model.Key) (*Location, error) {
	if k.Engine != model.EnginePulumi {
		return nil, writeguard.Refusef("%s is not a Pulumi Stack", k.Ref())
	}
	c, ok := o.Cluster(k.Context)
	if !ok {
		return nil, fmt.Errorf("unknown context %q", k.Context)
	}
	obj, err := c.Dynamic.Resource(pulumiop.Stacks).Namespace(k.Namespace).Get(ctx, k.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, &writeguard.Refusal{Reason: fmt.Sprintf("%s does not exist (any more)", k.Ref()), NotFound: true}
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", k.Ref(), err)
	}
	r := objread.New(obj.Object)
	loc := &Location{
		Key: k, Stack: r.Str("spec", "stack"), Backend: r.Str("spec", "backend"),
		Repo: r.Str("spec", "projectRepo"), Commit: r.Str("spec", "commit"), Branch: r.Str("spec", "branch"), RepoDir: r.Str("spec", "repoDir"),
	}
	for i := range o.Programs {
		if o.Programs[i].Unit == k.Ref() || o.Programs[i].Unit == k.String() {
			loc.Local = &o.Programs[i]
		}
	}
	mapDemoProgram(c, loc)
	if loc.Local != nil {
		if loc.Local.Stack != "" {
			loc.Stack = loc.Local.Stack
		}
		if loc.Local.Backend != "" {
			loc.Backend = loc.Local.Backend
		}
	}
	if loc.Backend == "" {
		loc.Backend = os.Getenv("PULUMI_BACKEND_URL")
	}
	if loc.Backend == "" {
		return nil, fmt.Errorf("%s: no state backend known (spec.backend is empty): map it in the config file's stacks: entry or set PULUMI_BACKEND_URL", k.Ref())
	}
	loc.Ref = stackRef(loc.Stack, r.Str("status", "projectInfo", "name"), loc.Backend)
	if loc.Ref.Project == "" && !strings.HasPrefix(loc.Backend, "http") {
		// A DIY backend's project-scoped layout needs the project name.
		return nil, fmt.Errorf("%s: spec.stack %q does not name the project and the Stack's status has no projectInfo: map it in the config file with stack: <org>/<project>/<stack>", k.Ref(), loc.Stack)
	}
	return loc, nil
}

// stackRef splits "org/project/stack" (or "stack") into a reference; DIY
// backends use the organization "organization".
func stackRef(name, project, backend string) pulumistate.StackRef {
	parts := strings.Split(name, "/")
	ref := pulumistate.StackRef{Stack: parts[len(parts)-1], Project: project}
	switch len(parts) {
	case 3:
		ref.Org, ref.Project = parts[0], parts[1]
	case 2:
		ref.Project = parts[0]
	}
	if !strings.HasPrefix(backend, "http") {
		ref.Org = "organization"
	}
	return ref
}

// env is what the CLI may see: the variables the user's mapping allows, and
// the Pulumi credentials and passphrase.
func env(loc *Location) map[string]string {
	names := []string{"PULUMI_ACCESS_TOKEN", "PULUMI_CONFIG_PASSPHRASE", "PULUMI_CONFIG_PASSPHRASE_FILE", "PULUMI_HOME"}
	if loc.Local != nil {
		names = append(names, loc.Local.Env...)
	}
	out := map[string]string{}
	for _, n := range names {
		if v, ok := os.LookupEnv(n); ok {
			out[n] = v
		}
	}
	return out
}
