package rootmod

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/driftdeck/driftdeck/backend/model"
)

// State is what a workspace's state snapshot says.
type State struct {
	Serial      int64
	Lineage     string
	TofuVersion string
	Resources   []string
	Outputs     []model.RootOutput
}

// rawState is the state file's format (version 4), what `state pull`
// prints.
type rawState struct {
	Version          int    `json:"version"`
	TerraformVersion string `json:"terraform_version"`
	Serial           int64  `json:"serial"`
	Lineage          string `json:"lineage"`
	Outputs          map[string]struct {
		Value     json.RawMessage `json:"value"`
		Sensitive bool            `json:"sensitive"`
	} `json:"outputs"`
	Resources []struct {
		Module    string `json:"module"`
		Mode      string `json:"mode"`
		Type      string `json:"type"`
		Name      string `json:"name"`
		Instances []struct {
			IndexKey json.RawMessage `json:"index_key"`
		} `json:"instances"`
	} `json:"resources"`
}

// ReadState reads the workspace's current state from its backend (`state
// pull`, which takes no lock). A workspace never applied has serial 0.
func (t *Tofu) ReadState(ctx context.Context, r Root) (*State, error) {
	defer t.lock(r)()
	out, _, err := t.runInit(ctx, r, "state", "pull")
	if err != nil {
		return nil, err
	}
	return parseState(out)
}

func parseState(b []byte) (*State, error) {
	if len(strings.TrimSpace(string(b))) == 0 {
		return &State{}, nil // no state yet
	}
	var raw rawState
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("reading the state: %w", err)
	}
	if raw.Version != 4 {
		return nil, fmt.Errorf("reading the state: format version %d, driftdeck reads version 4", raw.Version)
	}
	st := &State{Serial: raw.Serial, Lineage: raw.Lineage, TofuVersion: raw.TerraformVersion}
	for _, res := range raw.Resources {
		if res.Mode != "managed" {
			continue
		}
		base := res.Type + "." + res.Name
		if res.Module != "" {
			base = res.Module + "." + base
		}
		for _, in := range res.Instances {
			st.Resources = append(st.Resources, base+indexSuffix(in.IndexKey))
		}
	}
	for name, o := range raw.Outputs {
		out := model.RootOutput{Name: name, Sensitive: o.Sensitive}
		if !o.Sensitive {
			out.Value = string(o.Value)
		}
		st.Outputs = append(st.Outputs, out)
	}
	slices.SortFunc(st.Outputs, func(a, b model.RootOutput) int { return strings.Compare(a.Name, b.Name) })
	return st, nil
}

// indexSuffix is an instance's index as tofu writes addresses: [0] or
// ["eu"].
func indexSuffix(key json.RawMessage) string {
	if len(key) == 0 || string(key) == "null" {
		return ""
	}
	return "[" + string(key) + "]"
}
