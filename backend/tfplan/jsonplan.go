package tfplan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/driftdeck/driftdeck/backend/diff"
)

// What stands in for values the plan does not show.
const (
	Sensitive        = "(sensitive value)"
	SensitiveChanged = "(sensitive value, changed)"
	KnownAfterApply  = "(known after apply)"
)

// jsonPlan is the part of `tofu show -json` read here. Variables and prior
// state are never decoded: they hold sensitive values in clear.
type jsonPlan struct {
	FormatVersion   string                `json:"format_version"`
	ResourceChanges []jsonResource        `json:"resource_changes"`
	ResourceDrift   []jsonResource        `json:"resource_drift"`
	OutputChanges   map[string]jsonChange `json:"output_changes"`
}

type jsonResource struct {
	Address      string     `json:"address"`
	Change       jsonChange `json:"change"`
	ActionReason string     `json:"action_reason"`
}

type jsonChange struct {
	Actions         []string `json:"actions"`
	Before          any      `json:"before"`
	After           any      `json:"after"`
	AfterUnknown    any      `json:"after_unknown"`
	BeforeSensitive any      `json:"before_sensitive"`
	AfterSensitive  any      `json:"after_sensitive"`
}

// ParseJSON reads a JSON plan (`tofu show -json`, as tofu-controller stores
// it with storeReadablePlan: json).
func ParseJSON(data []byte, opts diff.Options) (*Plan, error) {
	var raw jsonPlan
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("JSON plan: %w", err)
	}
	p := &Plan{Format: "json"}
	for _, rc := range raw.ResourceChanges {
		a := jsonAction(rc.Change.Actions)
		if a == "" {
			continue // no-op
		}
		d, err := jsonDiff(keyOf(rc.Address, a), rc.Change, opts)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rc.Address, err)
		}
		p.Resources = append(p.Resources, Resource{Address: rc.Address, Action: a, Header: header(rc.Address, a), Diff: d})
	}
	if out, err := outputsDiff(raw.OutputChanges, opts); err != nil {
		return nil, err
	} else if out != nil {
		p.Resources = append(p.Resources, *out)
	}
	for _, d := range raw.ResourceDrift {
		p.Warnings = append(p.Warnings, d.Address+" changed outside OpenTofu since the last apply")
	}
	p.Report = report(p.Resources)
	p.Summary = summary(p.Resources)
	return p, nil
}

// jsonAction maps a change's actions; "" for a no-op.
func jsonAction(actions []string) Action {
	switch strings.Join(actions, ",") {
	case "create":
		return Create
	case "update":
		return Update
	case "delete":
		return Destroy
	case "delete,create", "create,delete":
		return Replace
	case "read":
		return Read
	case "no-op", "":
		return ""
	}
	return Other
}

// header words a change as tofu's human plan does.
func header(address string, a Action) string {
	verb := map[Action]string{
		Create: "will be created", Update: "will be updated in-place", Replace: "must be replaced",
		Destroy: "will be destroyed", Read: "will be read during apply", Other: "will change",
	}[a]
	return "# " + address + " " + verb
}

// summary counts as tofu's "Plan:" line does: resources only, a
// replacement adds one and destroys one.
func summary(rs []Resource) string {
	var add, change, destroy int
	for _, r := range rs {
		if r.Address == OutputsAddress {
			continue
		}
		switch r.Action {
		case Create:
			add++
		case Update:
			change++
		case Destroy:
			destroy++
		case Replace:
			add++
			destroy++
		}
	}
	if add+change+destroy == 0 {
		return "No changes."
	}
	return fmt.Sprintf("Plan: %d to add, %d to change, %d to destroy.", add, change, destroy)
}

func jsonDiff(key diff.ObjectKey, c jsonChange, opts diff.Options) (*diff.ObjectDiff, error) {
	before, after := maskPair(c.Before, markUnknown(c.After, c.AfterUnknown), c.BeforeSensitive, c.AfterSensitive)
	pr := diff.Pair{Key: key, Live: asObject(before), Desired: asObject(after)}
	if pr.Live == nil && pr.Desired == nil {
		pr.Live, pr.Desired = map[string]any{}, map[string]any{}
	}
	return diff.Object(pr, opts)
}

// outputsDiff lists changed outputs as one object, "outputs".
func outputsDiff(changes map[string]jsonChange, opts diff.Options) (*Resource, error) {
	before, after := map[string]any{}, map[string]any{}
	names := make([]string, 0, len(changes))
	for n := range changes {
		names = append(names, n)
	}
	slices.Sort(names)
	changed := false
	for _, n := range names {
		c := changes[n]
		if jsonAction(c.Actions) == "" {
			continue
		}
		changed = true
		b, a := maskPair(c.Before, markUnknown(c.After, c.AfterUnknown), c.BeforeSensitive, c.AfterSensitive)
		if b != nil {
			before[n] = b
		}
		if a != nil {
			after[n] = a
		}
	}
	if !changed {
		return nil, nil
	}
	key := keyOf(OutputsAddress, Update)
	d, err := diff.Object(diff.Pair{Key: key, Live: before, Desired: after}, opts)
	if err != nil {
		return nil, fmt.Errorf("outputs: %w", err)
	}
	d.Change = diff.Modified
	return &Resource{Address: OutputsAddress, Action: Update, Header: "# Changes to Outputs", Diff: d}, nil
}

// asObject gives a resource side the shape the diff engine compares; a
// resource whose whole value is not an object is shown under "value".
func asObject(v any) map[string]any {
	switch v := v.(type) {
	case nil:
		return nil
	case map[string]any:
		return v
	default:
		return map[string]any{"value": v}
	}
}

// markUnknown replaces what after_unknown marks true by KnownAfterApply.
func markUnknown(v, unknown any) any {
	switch u := unknown.(type) {
	case bool:
		if u {
			return KnownAfterApply
		}
	case map[string]any:
		m, _ := v.(map[string]any)
		out := make(map[string]any, len(m)+len(u))
		for k, x := range m {
			out[k] = x
		}
		for k, uu := range u {
			out[k] = markUnknown(m[k], uu)
			if out[k] == nil {
				delete(out, k)
			}
		}
		if v == nil && len(out) == 0 {
			return nil
		}
		return out
	case []any:
		l, _ := v.([]any)
		out := slices.Clone(l)
		for i, uu := range u {
			if i >= len(out) {
				out = append(out, nil)
			}
			out[i] = markUnknown(out[i], uu)
		}
		return out
	}
	return v
}

// maskPair masks, on each side, every value its sensitivity tree marks
// true. A sensitive value that differs between the sides reads
// SensitiveChanged on the after side, so the change stays visible while no
// part of either value is shown.
func maskPair(before, after, bs, as any) (any, any) {
	bTrue, aTrue := bs == true, as == true
	if bTrue || aTrue {
		changed := !reflect.DeepEqual(before, after)
		b, a := before, after
		if bTrue && before != nil {
			b = Sensitive
		}
		if aTrue && after != nil {
			a = Sensitive
			if changed && after != KnownAfterApply {
				a = SensitiveChanged
			}
		}
		if !bTrue {
			b = maskOne(before, bs)
		}
		if !aTrue {
			a = maskOne(after, as)
		}
		return b, a
	}
	switch bv := before.(type) {
	case map[string]any:
		if av, ok := after.(map[string]any); ok {
			bm, am := map[string]any{}, map[string]any{}
			for k, x := range bv {
				bm[k], _ = maskPair(x, av[k], child(bs, k), child(as, k))
			}
			for k, y := range av {
				_, am[k] = maskPair(bv[k], y, child(bs, k), child(as, k))
			}
			return bm, am
		}
	case []any:
		if av, ok := after.([]any); ok {
			bl, al := make([]any, len(bv)), make([]any, len(av))
			for i := range bv {
				bl[i], _ = maskPair(bv[i], at(av, i), index(bs, i), index(as, i))
			}
			for i := range av {
				_, al[i] = maskPair(at(bv, i), av[i], index(bs, i), index(as, i))
			}
			return bl, al
		}
	}
	return maskOne(before, bs), maskOne(after, as)
}

// maskOne masks one side alone.
func maskOne(v, s any) any {
	if v == nil {
		return nil
	}
	if s == true {
		return Sensitive
	}
	switch vv := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(vv))
		for k, x := range vv {
			out[k] = maskOne(x, child(s, k))
		}
		return out
	case []any:
		out := make([]any, len(vv))
		for i, x := range vv {
			out[i] = maskOne(x, index(s, i))
		}
		return out
	}
	return v
}

func child(s any, k string) any {
	m, _ := s.(map[string]any)
	return m[k]
}

func index(s any, i int) any {
	l, _ := s.([]any)
	return at(l, i)
}

func at(l []any, i int) any {
	if i < len(l) {
		return l[i]
	}
	return nil
}
