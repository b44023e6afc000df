package actions

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/driftdeck/driftdeck/backend/writeguard"
)

// Stored is a plan kept outside the process, in a change request: the
// exact bytes of every write it makes, the version and the time it was
// made for, who it was made as, and what was shown of it. Another process
// sends it later with SendStored, as it is.
type Stored struct {
	ResourceVersion string    `json:"resourceVersion"`
	At              time.Time `json:"at"`
	// Actor is who the plan was made as: a pause records them as its author.
	Actor    string        `json:"actor,omitempty"`
	Summary  string        `json:"summary,omitempty"`
	Patch    string        `json:"patch"`
	Digest   string        `json:"digest"`
	Changes  []string      `json:"changes,omitempty"`
	Warnings []string      `json:"warnings,omitempty"`
	Also     []StoredWrite `json:"also,omitempty"`
	// Assumes are the answers about the installed CRDs the plan was made
	// with: it is judged with them, by an identity that may read more.
	Assumes map[string]string `json:"assumes,omitempty"`
}

// StoredWrite is a stored plan's write to another object than the unit.
type StoredWrite struct {
	Object          string   `json:"object"`
	ResourceVersion string   `json:"resourceVersion,omitempty"`
	When            string   `json:"when,omitempty"`
	Changes         []string `json:"changes,omitempty"`
	Patch           string   `json:"patch"`
}

// ChangeRequests are where change requests are kept (deploy/change-requests).
var ChangeRequests = schema.GroupVersionResource{Group: "driftdeck.io", Version: "v1alpha1", Resource: "changerequests"}

// Requestable tells why a kind cannot be stored and sent by another
// process: nil when it can.
func Requestable(k Kind) error {
	s, ok := SpecOf(k)
	switch {
	case !ok:
		return fmt.Errorf("unknown action %q", k)
	case s.StateWrite:
		return &Refusal{Reason: fmt.Sprintf("%s writes the Stack's state backend, not the cluster: it cannot be requested, only done by someone with access to the backend", k)}
	}
	return nil
}

// Store is the plan as a change request keeps it: its patch's bytes, those
// of its other writes, and their digest. Only a plan made by Plan (bound
// to the version it read) can be stored.
func (p *Plan) Store() (Stored, error) {
	if !p.bound() {
		return Stored{}, fmt.Errorf("only a plan made by Plan can be stored: it is bound to the version it was made from")
	}
	if err := Requestable(p.Request.Kind); err != nil {
		return Stored{}, err
	}
	body, err := patch(p.Patch).bytes()
	if err != nil {
		return Stored{}, err
	}
	s := Stored{ResourceVersion: p.ResourceVersion, At: p.at, Actor: p.actor, Summary: p.Summary, Patch: string(body),
		Changes: p.Changes, Warnings: p.Warnings, Assumes: p.assumed}
	for _, o := range p.Also {
		b, err := patch(o.Patch).bytes()
		if err != nil {
			return Stored{}, err
		}
		s.Also = append(s.Also, StoredWrite{Object: o.Object, ResourceVersion: o.ResourceVersion, When: o.When, Changes: o.Changes, Patch: string(b)})
	}
	s.Digest = s.digestOf()
	return s, nil
}

// digestOf is the sha256 of every write's bytes, in order.
func (s Stored) digestOf() string {
	h := sha256.New()
	h.Write([]byte(s.Patch))
	for _, o := range s.Also {
		h.Write([]byte("\n" + o.Object + "\n" + o.Patch))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// plan is the stored plan over the parts of a plan made now that are not
// stored (what it verifies, its Event, its writes' routes): what is shown
// and sent is the stored one.
func (s Stored) plan(now *Plan) (*Plan, error) {
	if s.digestOf() != s.Digest {
		return nil, &Refusal{Reason: "the stored plan does not match its digest: it was altered after it was made; nothing written"}
	}
	ops, err := decodeOps(s.Patch)
	if err != nil {
		return nil, fmt.Errorf("the stored patch: %w", err)
	}
	p := *now
	p.Patch, p.ResourceVersion = ops, s.ResourceVersion
	p.Summary, p.Changes, p.Warnings, p.Also = s.Summary, s.Changes, s.Warnings, nil
	for _, o := range s.Also {
		ops, err := decodeOps(o.Patch)
		if err != nil {
			return nil, fmt.Errorf("the stored write to %s: %w", o.Object, err)
		}
		p.Also = append(p.Also, OtherWrite{Object: o.Object, ResourceVersion: o.ResourceVersion, When: o.When, Changes: o.Changes, Patch: ops})
	}
	if !p.bound() {
		return nil, &Refusal{Reason: "the stored patch does not test the version it was made from first: it was not made by driftdeck; nothing written"}
	}
	return &p, nil
}

// decodeOps reads a patch back so that it encodes to the same bytes:
// strings stay strings (the version test is read as one), every other
// value keeps its bytes.
func decodeOps(body string) ([]Op, error) {
	var raw []struct {
		Op    string          `json:"op"`
		Path  string          `json:"path"`
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal([]byte(body), &raw); err != nil {
		return nil, err
	}
	ops := make([]Op, len(raw))
	for i, r := range raw {
		ops[i] = Op{Op: r.Op, Path: r.Path}
		var s string
		switch {
		case len(r.Value) == 0, string(r.Value) == "null":
		case r.Value[0] == '"' && json.Unmarshal(r.Value, &s) == nil:
			ops[i].Value = s
		default:
			ops[i].Value = r.Value
		}
	}
	if again, err := patch(ops).bytes(); err != nil || !bytes.Equal(again, []byte(body)) {
		return nil, fmt.Errorf("it is not in the form driftdeck writes (it would not be sent byte for byte)")
	}
	return ops, nil
}

// SendStored writes a stored plan for a request others approved. The unit
// must still be the object the plan was made from (uid). The plan is made
// again on the object as it is now, at the stored time and as the stored
// actor, only to judge: when it writes or checks anything else than the
// stored one (the object changed in what the plan reads, or the stored
// plan is not what driftdeck makes for that request), nothing is written
// and *PlanChanged says what differs. Otherwise the stored bytes are sent,
// bound to the stored version, or, when only what the plan neither writes
// nor reads moved on (a controller's status), to the version now read.
func (e *Executor) SendStored(ctx context.Context, req Request, s Stored, uid string) (*Result, error) {
	if err := Requestable(req.Kind); err != nil {
		return nil, err
	}
	return e.guarded(ctx, req, func(w *writeguard.Write) (*Result, error) {
		obj, err := e.get(ctx, w.Cluster, req.Key)
		if err != nil {
			return nil, err
		}
		env := &planEnv{ctx: ctx, cluster: w.Cluster, actor: s.Actor, now: s.At, exec: e, api: e.argoAPI(req.Key), assumed: maps.Clone(s.Assumes)}
		now, err := e.plan(env, obj, req, true)
		if err != nil {
			return nil, err
		}
		if got := now.uid; got != uid {
			return nil, &PlanChanged{Plan: now, Changes: []string{fmt.Sprintf("%s was deleted and created again since the plan was made (uid %s, now %s)", req.Key.Ref(), uid, got)}}
		}
		shown, err := s.plan(now)
		if err != nil {
			return nil, err
		}
		if changes := PlanDifferences(shown, now); len(changes) > 0 {
			return nil, &PlanChanged{Plan: now, Changes: changes}
		}
		return e.sendShown(ctx, w, shown, 0)
	})
}
