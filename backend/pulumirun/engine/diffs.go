package engine

import (
	"sort"
	"strings"

	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
)

// propertyDiffs lists a step's changed properties. The engine's detailed
// diff is used when present (old values from the old outputs, or old inputs
// for input diffs; new values from the new inputs, as the CLI shows them);
// otherwise the top-level diff keys with old and new inputs; a create lists
// its inputs.
func propertyDiffs(md *apitype.StepEventMetadata) []pulumirun.PropertyDiff {
	switch {
	case len(md.DetailedDiff) > 0 && md.Old != nil && md.New != nil:
		return detailedDiffs(md)
	case len(md.Diffs) > 0 && md.Old != nil && md.New != nil:
		return keyDiffs(md)
	case md.Op == apitype.OpCreate && md.New != nil:
		return inputAdds(md.New.Inputs)
	}
	return nil
}

func detailedDiffs(md *apitype.StepEventMetadata) []pulumirun.PropertyDiff {
	hidden := hiddenPaths(md)
	out := make([]pulumirun.PropertyDiff, 0, len(md.DetailedDiff))
	for p, d := range md.DetailedDiff {
		path, err := resource.ParsePropertyPath(p)
		if err != nil {
			path = resource.PropertyPath{p}
		}
		if isHidden(hidden, path) {
			continue
		}
		olds := md.Old.Outputs
		if d.InputDiff {
			olds = md.Old.Inputs
		}
		pd := pulumirun.PropertyDiff{Path: p, Replace: strings.HasSuffix(string(d.Kind), "-replace")}
		var old, nu any
		var hadOld, hasNew bool
		switch d.Kind {
		case apitype.DiffAdd, apitype.DiffAddReplace:
			pd.Kind = pulumirun.DiffAdd
		case apitype.DiffDelete, apitype.DiffDeleteReplace:
			pd.Kind = pulumirun.DiffDelete
		default:
			pd.Kind = pulumirun.DiffUpdate
		}
		if pd.Kind != pulumirun.DiffAdd {
			if old, hadOld = lookup(olds, path); hadOld {
				pd.Old = render(old)
			}
		}
		if pd.Kind != pulumirun.DiffDelete {
			if nu, hasNew = lookup(md.New.Inputs, path); hasNew {
				pd.New = render(nu)
			}
		}
		if pd.Kind == pulumirun.DiffUpdate && hadOld && hasNew {
			out = append(out, changedParts(pd, path, old, nu, hidden)...)
			continue
		}
		out = append(out, pd)
	}
	sortDiffs(out)
	return out
}

func keyDiffs(md *apitype.StepEventMetadata) []pulumirun.PropertyDiff {
	olds := md.Old.Inputs
	if len(olds) == 0 {
		olds = md.Old.Outputs
	}
	out := make([]pulumirun.PropertyDiff, 0, len(md.Diffs))
	for _, k := range md.Diffs {
		pd := pulumirun.PropertyDiff{Path: k, Kind: pulumirun.DiffUpdate}
		old, hadOld := olds[k]
		nu, hasNew := md.New.Inputs[k]
		switch {
		case !hadOld:
			pd.Kind = pulumirun.DiffAdd
		case !hasNew:
			pd.Kind = pulumirun.DiffDelete
		}
		if hadOld {
			pd.Old = render(old)
		}
		if hasNew {
			pd.New = render(nu)
		}
		for _, rk := range md.Keys {
			if rk == k {
				pd.Replace = true
			}
		}
		if hadOld && hasNew {
			out = append(out, changedParts(pd, resource.PropertyPath{k}, old, nu, hiddenPaths(md))...)
			continue
		}
		out = append(out, pd)
	}
	sortDiffs(out)
	return out
}

func inputAdds(inputs map[string]any) []pulumirun.PropertyDiff {
	out := make([]pulumirun.PropertyDiff, 0, len(inputs))
	for k, v := range inputs {
		if strings.HasPrefix(k, "__") { // engine bookkeeping such as __defaults
			continue
		}
		out = append(out, pulumirun.PropertyDiff{Path: k, Kind: pulumirun.DiffAdd, New: render(v)})
	}
	sortDiffs(out)
	return out
}

func sortDiffs(ds []pulumirun.PropertyDiff) {
	sort.Slice(ds, func(i, j int) bool { return ds[i].Path < ds[j].Path })
}

// hiddenPaths returns the paths the program asked not to show (hideDiffs).
func hiddenPaths(md *apitype.StepEventMetadata) []resource.PropertyPath {
	if md.New != nil {
		return md.New.HideDiffs
	}
	if md.Old != nil {
		return md.Old.HideDiffs
	}
	return nil
}

func isHidden(hidden []resource.PropertyPath, path resource.PropertyPath) bool {
	for _, h := range hidden {
		if h.Contains(path) {
			return true
		}
	}
	return false
}

// changedParts breaks the update of an object or a list into the changes of
// its members, as pulumi preview --diff prints them: a one-line value of a
// whole object would bury the one key that changes (input.retentionDays:
// 14 => 30) among those that do not. Other values, placeholders (secrets,
// unknowns) included, stay one change.
func changedParts(pd pulumirun.PropertyDiff, path resource.PropertyPath, old, nu any, hidden []resource.PropertyPath) []pulumirun.PropertyDiff {
	if _, ok := placeholder(old); ok {
		return []pulumirun.PropertyDiff{pd}
	}
	if _, ok := placeholder(nu); ok {
		return []pulumirun.PropertyDiff{pd}
	}
	var out []pulumirun.PropertyDiff
	member := func(el any, o, n any, hadOld, hasNew bool) {
		p := append(append(resource.PropertyPath{}, path...), el)
		if isHidden(hidden, p) || hadOld && hasNew && render(o) == render(n) {
			return
		}
		d := pulumirun.PropertyDiff{Path: p.String(), Kind: pulumirun.DiffUpdate, Replace: pd.Replace}
		switch {
		case !hadOld:
			d.Kind, d.New = pulumirun.DiffAdd, render(n)
		case !hasNew:
			d.Kind, d.Old = pulumirun.DiffDelete, render(o)
		default:
			d.Old, d.New = render(o), render(n)
			out = append(out, changedParts(d, p, o, n, hidden)...)
			return
		}
		out = append(out, d)
	}
	switch o := old.(type) {
	case map[string]any:
		n, ok := nu.(map[string]any)
		if !ok {
			break
		}
		keys := make([]string, 0, len(o)+len(n))
		for k := range o {
			keys = append(keys, k)
		}
		for k := range n {
			if _, dup := o[k]; !dup {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			ov, hadOld := o[k]
			nv, hasNew := n[k]
			member(k, ov, nv, hadOld, hasNew)
		}
	case []any:
		n, ok := nu.([]any)
		if !ok || len(n) != len(o) { // an insertion would read as every later element changed
			break
		}
		for i := range o {
			member(i, o[i], n[i], true, true)
		}
	}
	if len(out) == 0 {
		return []pulumirun.PropertyDiff{pd}
	}
	return out
}
