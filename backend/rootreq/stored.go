// Package rootreq is four-eyes applies of root modules' plans: the
// requester keeps the plan they were shown in a ChangeRequest; once others
// approved it, the agent plans the module again with its own credentials
// and applies its own plan file only when it reads the same (ADR 0044).
package rootreq

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/changereq"
	"github.com/driftdeck/driftdeck/backend/rootmod"
	"github.com/driftdeck/driftdeck/backend/tfplan"
)

// DefaultNamespace keeps root modules' requests when not told otherwise:
// the agent's own (deploy/), where the requester and reviewer roles are
// bound for them.
const DefaultNamespace = "driftdeck-system"

// What a ChangeRequest can hold (deploy/change-requests/crd.yaml).
const (
	maxShown     = 262144
	maxResources = 256
)

// Shown is a plan as a request keeps it: the text a reviewer reads (each
// resource's header and its before/after diff, sensitive values masked, in
// plan order) and one line per resource naming its action and a digest of
// its part, by which two plans are told apart resource by resource.
func Shown(p *tfplan.Plan) (text string, lines []string, err error) {
	var all strings.Builder
	for _, res := range p.Resources {
		var b strings.Builder
		fmt.Fprintf(&b, "%s\n", res.Header)
		if err := res.Diff.Text.WriteUnified(&b, res.Address+" (before)", res.Address+" (after)", 3); err != nil {
			return "", nil, err
		}
		sum := sha256.Sum256([]byte(b.String()))
		lines = append(lines, fmt.Sprintf("%s: %s (%s)", res.Address, res.Action, hex.EncodeToString(sum[:6])))
		all.WriteString(b.String() + "\n")
	}
	return all.String(), lines, nil
}

// digestOf is a shown plan's digest, the one reviews name.
func digestOf(text string) string {
	sum := sha256.Sum256([]byte(text))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Store is a saved plan as a request keeps it, made as actor: the shown
// plan in place of a patch, the state serial in place of a version.
func Store(saved *rootmod.Saved, actor string) (actions.Stored, error) {
	text, lines, err := Shown(saved.Plan)
	switch {
	case err != nil:
		return actions.Stored{}, err
	case len(text) > maxShown || len(lines) > maxResources:
		return actions.Stored{}, &actions.Refusal{Reason: fmt.Sprintf("the plan is too large for a change request (%d resources, %d bytes shown; at most %d and %d): apply it with the module's own review process",
			len(lines), len(text), maxResources, maxShown)}
	}
	return actions.Stored{ResourceVersion: strconv.FormatInt(saved.Serial, 10), At: saved.At, Actor: actor, Summary: saved.Summary,
		Patch: text, Digest: digestOf(text), Changes: lines}, nil
}

// Ask keeps the saved plan of r in a new request in namespace, asked by
// a.Requester for the reason given.
func Ask(ctx context.Context, dyn dynamic.Interface, namespace string, r rootmod.Root, saved *rootmod.Saved, reason string, a changereq.Ask, now time.Time) (*changereq.ChangeRequest, error) {
	if !saved.Changes {
		return nil, &actions.Refusal{Reason: r.Key().Ref() + "'s plan changes nothing: there is nothing to ask for"}
	}
	stored, err := Store(saved, a.Requester)
	if err != nil {
		return nil, err
	}
	spec := a.Spec(changereq.RootUnit(r.Key(), saved.Lineage), actions.Approve, changereq.Options{}, reason, stored, now)
	return changereq.CreateSpec(ctx, dyn, namespace, spec, a.DryRun)
}

// Lines are a root module's stored plan as its reviewers read it, whole:
// what the agent's own plan must read as before it is applied. They are
// the cluster's text: shown with escape sequences made visible.
func Lines(pl actions.Stored) []string {
	out := []string{fmt.Sprintf("applies (the agent plans the module again and applies its own plan only when it reads as this one; planned against state serial %s, %s, as %s):",
		pl.ResourceVersion, pl.At.UTC().Format(time.RFC3339), pl.Actor)}
	for _, c := range pl.Changes {
		out = append(out, "  "+c)
	}
	for line := range strings.Lines(pl.Patch) {
		out = append(out, "  "+strings.TrimSuffix(line, "\n"))
	}
	return append(out, "digest "+pl.Digest)
}
