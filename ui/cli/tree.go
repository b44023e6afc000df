package cli

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/driftdeck/driftdeck/backend/fleet"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/safetext"
	"github.com/driftdeck/driftdeck/backend/tree"
)

func newTreeCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tree <unit>",
		Short: "Print a unit and every unit below it, with their states",
		Long: `Print the subtree of a unit: an ApplicationSet (applicationset/<ns>/<name>)
or an app of apps over its Applications, a Stack over the Stacks that name it
a prerequisite, a Kustomization over those that depend on it. A parent line
counts the units below it, the worst state first. A unit with several
parents is shown under the first (its owner, else the first it names); the
others are listed as "also under". -o json prints the same tree nested.`,
		Example: `  driftdeck tree applicationset/argocd/storefront-services
  driftdeck tree argocd/argocd/platform-root -o json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runTree(cmd.Context(), g, args[0]) },
	}
	cmd.Flags().StringVarP(&g.output, "output", "o", "table", "output format: table or json")
	return cmd
}

func runTree(ctx context.Context, g *globals, ref string) error {
	if err := g.checkOutput("table", "json"); err != nil {
		return err
	}
	want, err := model.ParseRef(ref)
	if err != nil {
		return usageError(err)
	}
	return withLiveModel(ctx, g, func(_ context.Context, _ *fleet.Fleet, units []*model.Unit) error {
		forest := tree.Build(units)
		n, err := findNode(forest, units, want)
		if err != nil {
			return err
		}
		now := time.Now()
		if g.output == "json" {
			return writeJSON(g.out, subtreeRecordOf(n, forest, now))
		}
		return printSubtree(g, n, forest, now)
	})
}

// findNode finds the unit a reference names; without a context, in
// whichever context has it (several: the reference must name one).
func findNode(forest *tree.Forest, units []*model.Unit, want model.Key) (*tree.Node, error) {
	var found []*tree.Node
	for _, u := range units {
		k := u.Key
		if k.Engine == want.Engine && k.Namespace == want.Namespace && k.Name == want.Name && (want.Context == "" || k.Context == want.Context) {
			n, _ := forest.Node(k)
			found = append(found, n)
		}
	}
	switch len(found) {
	case 0:
		return nil, &exitError{code: exitNotFound, err: fmt.Errorf("%s: no such unit in the selected contexts", want)}
	case 1:
		return found[0], nil
	}
	var ctxs []string
	for _, n := range found {
		ctxs = append(ctxs, n.Unit.Key.Context)
	}
	return nil, usageError(fmt.Errorf("%s is in several contexts (%s): name one, as <context>:%s", want.Ref(), strings.Join(ctxs, ", "), want.Ref()))
}

// printSubtree writes the subtree as a table: the unit column drawn as a tree.
func printSubtree(g *globals, top *tree.Node, forest *tree.Forest, now time.Time) error {
	tw := tabwriter.NewWriter(g.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "UNIT\tSYNC\tHEALTH\tAUTOMATION\tRUN\tSINCE\tREASON")
	var walk func(n *tree.Node, lead, branch string)
	walk = func(n *tree.Node, lead, branch string) {
		u := n.Unit
		var why []string
		if s := n.Summary.String(); s != "" {
			why = append(why, s)
		}
		if r := u.Reason(); r != "" {
			why = append(why, oneLine(r, reasonWidth))
		}
		if len(n.Also) > 0 {
			why = append(why, "also under "+strings.Join(refs(n.Also), ", "))
		}
		row := []string{safetext.Visible(u.Key.Ref()), u.Sync.String(), u.Health.String(), automationWord(u, now), u.Run.String(),
			age(u.RunSince, now), safetext.Visible(strings.Join(why, "; "))}
		fmt.Fprintln(tw, lead+branch+strings.Join(row, "\t"))
		next := lead
		switch branch {
		case "├─ ":
			next += "│  "
		case "└─ ":
			next += "   "
		}
		for i, c := range n.Children {
			b := "├─ "
			if i == len(n.Children)-1 {
				b = "└─ "
			}
			walk(c, next, b)
		}
	}
	walk(top, "", "")
	if err := tw.Flush(); err != nil {
		return err
	}
	var notes []string
	if ps := forest.ParentsOf(top.Unit.Key); len(ps) > 0 {
		notes = append(notes, "under: "+strings.Join(refs(ps), ", "))
	}
	if also := forest.AlsoBelow(top.Unit.Key); len(also) > 0 {
		notes = append(notes, "also over (shown under their first parent): "+strings.Join(refs(also), ", "))
	}
	for _, n := range notes {
		if _, err := fmt.Fprintln(g.out, safetext.Visible(n)); err != nil {
			return err
		}
	}
	return nil
}

// subtreeRecord is the -o json shape of a subtree: the unit's status record,
// what is below it counted by state, and its children.
type subtreeRecord struct {
	unitRecord
	Below    map[string]int  `json:"below,omitempty"`
	Children []subtreeRecord `json:"children"`
	// AlsoOver are the units that name this one as a parent but are shown
	// under their first parent.
	AlsoOver []string `json:"alsoOver,omitempty"`
}

func subtreeRecordOf(n *tree.Node, forest *tree.Forest, now time.Time) subtreeRecord {
	r := subtreeRecord{unitRecord: newRecord(n.Unit, forest, nil, now), Below: n.Summary.Map(), Children: []subtreeRecord{}}
	if also := forest.AlsoBelow(n.Unit.Key); len(also) > 0 {
		r.AlsoOver = refs(also)
	}
	for _, c := range n.Children {
		r.Children = append(r.Children, subtreeRecordOf(c, forest, now))
	}
	return r
}
