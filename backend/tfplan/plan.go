package tfplan

import "github.com/driftdeck/driftdeck/backend/diff"

// Plan is a Terraform's readable plan, per resource.
type Plan struct {
	// ID is the plan id the stored plan is annotated with (savedPlan): the
	// one an approval of this plan must write, in full.
	ID string
	// Pending is status.plan.pending when the plan was read; a plan whose ID
	// differs is not the one waiting for approval (see Warnings).
	Pending string
	// Format is "human" (`tofu show -no-color`) or "json" (`tofu show -json`).
	Format string
	// Where names the objects the plan was read from.
	Where string
	// Resources are the planned changes in plan order, outputs last.
	Resources []Resource
	// Summary is tofu's own last line, e.g. "Plan: 1 to add, 2 to change, 0
	// to destroy." or "No changes.".
	Summary string
	// Report is the same changes as diffs, for the diff views.
	Report *diff.Report
	// Warnings are what the reader should know before approving.
	Warnings []string
}

// Action is what a plan does to one resource, in tofu's words.
type Action string

const (
	Create  Action = "create"
	Update  Action = "update"
	Replace Action = "replace"
	Destroy Action = "destroy"
	Read    Action = "read"
	Other   Action = "change" // moves, imports, forgets: no change to the object itself
)

// Resource is one planned change.
type Resource struct {
	Address string // e.g. module.db.aws_db_instance.main[0]; "outputs" for output changes
	Action  Action
	// Header is tofu's comment line(s), e.g. "# terraform_data.x will be updated in-place".
	Header string
	// Diff is the resource's before/after, sensitive values masked.
	Diff *diff.ObjectDiff
}

// Changes reports whether applying the plan would change anything (an
// output too).
func (p *Plan) Changes() bool {
	for _, r := range p.Resources {
		if r.Action != Read && r.Action != Other {
			return true
		}
	}
	return false
}

// Changed counts the resources the plan changes (outputs not counted).
func (p *Plan) Changed() int {
	n := 0
	for _, r := range p.Resources {
		if r.Address != OutputsAddress && r.Action != Read && r.Action != Other {
			n++
		}
	}
	return n
}

// OutputsAddress is the address under which output changes are listed.
const OutputsAddress = "outputs"

func changeOf(a Action) diff.Change {
	switch a {
	case Create:
		return diff.Added
	case Destroy:
		return diff.Removed
	case Update, Replace:
		return diff.Modified
	}
	return diff.Unchanged
}

// keyOf names a resource in the diff views: the action, then the address
// ("replace terraform_data.db"), so a replacement stands out in the list.
func keyOf(address string, a Action) diff.ObjectKey {
	return diff.ObjectKey{Kind: string(a), Name: address}
}

// report totals the resources' diffs, keeping plan order.
func report(rs []Resource) *diff.Report {
	r := &diff.Report{}
	for _, res := range rs {
		d := res.Diff
		r.Objects = append(r.Objects, d)
		switch d.Change {
		case diff.Added:
			r.Added++
		case diff.Removed:
			r.Removed++
		case diff.Modified:
			r.Modified++
		default:
			r.Unchanged++
		}
		r.Inserted += d.Text.Inserted
		r.Deleted += d.Text.Deleted
		r.Approximate = r.Approximate || d.Text.Approximate
	}
	return r
}
