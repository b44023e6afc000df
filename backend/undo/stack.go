package undo

import (
	"context"
	"encoding/json"

	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/driftdeck/driftdeck/backend/stackops"
)

// Previewer runs a Stack's preview (stackops.Ops); a Differ that is one
// forecasts a Stack's resume by its preview when it can run here.
type Previewer interface {
	Locate(ctx context.Context, k model.Key) (*stackops.Location, error)
	Preview(ctx context.Context, k model.Key, onEvent func(pulumirun.Event)) (*stackops.Reviewed, error)
}

// preview fills the forecast from the Stack's preview when its program
// runs on this machine (mapped in the config file, or the demo's); false
// leaves the forecast to name the preview command.
func (f *Forecast) preview(ctx context.Context, p Previewer) bool {
	loc, err := p.Locate(ctx, f.Key)
	if err != nil || loc.Local == nil {
		return false // an operator-run program: the preview command fetches it
	}
	rv, err := p.Preview(ctx, f.Key, nil)
	f.diffed = true
	if err != nil {
		f.Err = err
		return true
	}
	defer rv.Close()
	f.Source = "preview of stack " + loc.Stack + " on this machine"
	for _, s := range rv.Result.Steps {
		if s.Op == pulumirun.OpSame || s.Op == pulumirun.OpRead {
			continue
		}
		ob := Object{Name: s.Type + " " + s.Name, What: string(s.Op)}
		for _, d := range s.Diffs {
			ob.Fields = append(ob.Fields, diff.FieldChange{Path: d.Path, Change: change(d.Kind), Live: previewValue(d.Old), Desired: previewValue(d.New)})
		}
		f.Objects = append(f.Objects, ob)
	}
	return true
}

func change(k pulumirun.DiffKind) diff.Change {
	switch k {
	case pulumirun.DiffAdd:
		return diff.Added
	case pulumirun.DiffDelete:
		return diff.Removed
	}
	return diff.Modified
}

// previewValue keeps a value the preview rendered as JSON as it is, and a
// placeholder ([secret], [unknown]) as a word.
func previewValue(rendered string) any {
	if json.Valid([]byte(rendered)) {
		return json.RawMessage(rendered)
	}
	return rendered
}
