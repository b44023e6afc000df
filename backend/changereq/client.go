package changereq

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/actions"
)

// Ask is what a requester gives beside the plan shown.
type Ask struct {
	Requester string
	// Approvals required from people other than the requester (at least 1).
	Approvals int
	// For is how long the request stays open.
	For time.Duration
	// DryRun has the API server check the request (its admission policy
	// too) without storing it.
	DryRun bool
}

// DefaultOpen is how long a request stays open when not told.
const DefaultOpen = 24 * time.Hour

// Create stores the plan shown in a new request in the unit's namespace
// and returns it as created. The API server refuses a requester who is not
// the identity creating it.
func Create(ctx context.Context, dyn dynamic.Interface, p *actions.Plan, a Ask, now time.Time) (*ChangeRequest, error) {
	stored, err := p.Store()
	if err != nil {
		return nil, err
	}
	req := p.Request
	spec := a.Spec(Unit{Engine: req.Key.Engine, Name: req.Key.Name, UID: p.UID()}, req.Kind, optionsOf(req), req.Reason, stored, now)
	return CreateSpec(ctx, dyn, req.Key.Namespace, spec, a.DryRun)
}

// Spec is the request a asks for: the plan stored of kind on u, open for
// a.For (DefaultOpen when unset), approved by a.Approvals (at least one).
func (a Ask) Spec(u Unit, kind actions.Kind, o Options, reason string, plan actions.Stored, now time.Time) Spec {
	if a.Approvals < 1 {
		a.Approvals = 1
	}
	if a.For <= 0 {
		a.For = DefaultOpen
	}
	return Spec{Unit: u, Action: kind, Options: o, Reason: reason, Requester: a.Requester, ApprovalsRequired: a.Approvals,
		ExpiresAt: now.Add(a.For).UTC().Truncate(time.Second), Plan: plan}
}

// CreateSpec stores spec in a new request in namespace and returns it as
// created.
func CreateSpec(ctx context.Context, dyn dynamic.Interface, namespace string, spec Spec, dryRun bool) (*ChangeRequest, error) {
	if strings.TrimSpace(spec.Reason) == "" {
		return nil, &actions.Refusal{Reason: "a change request needs a reason: its reviewers read it"}
	}
	obj, err := toObject(namespace, spec)
	if err != nil {
		return nil, err
	}
	opts := metav1.CreateOptions{FieldManager: "driftdeck"}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	out, err := dyn.Resource(GVR).Namespace(namespace).Create(ctx, &unstructured.Unstructured{Object: obj}, opts)
	if err != nil {
		return nil, explain(err)
	}
	return FromObject(out.Object)
}

// Get reads one request.
func Get(ctx context.Context, dyn dynamic.Interface, namespace, name string) (*ChangeRequest, error) {
	out, err := dyn.Resource(GVR).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, explain(err)
	}
	return FromObject(out.Object)
}

// List reads the requests of a namespace ("": every namespace), oldest
// first.
func List(ctx context.Context, dyn dynamic.Interface, namespace string) ([]*ChangeRequest, error) {
	list, err := dyn.Resource(GVR).Namespace(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, explain(err)
	}
	out := make([]*ChangeRequest, 0, len(list.Items))
	for _, item := range list.Items {
		c, err := FromObject(item.Object)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(a, b *ChangeRequest) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return strings.Compare(a.Ref(), b.Ref())
	})
	return out, nil
}

// ErrClosed is a review of a request that no longer takes one (applied,
// rejected, stale, expired ...): nothing was written.
type ErrClosed struct {
	Phase Phase
	Why   string
}

// Unwrap makes it a refusal: nothing was written, and the command line
// exits 6.
func (e *ErrClosed) Unwrap() error { return &actions.Refusal{Reason: e.Error()} }

func (e *ErrClosed) Error() string {
	return fmt.Sprintf("the change request is %s (%s): nothing to review", strings.ToLower(string(e.Phase)), e.Why)
}

// AddReview appends the user's review of the request as it was shown (its
// digest): a JSON patch bound to the request's version; when another review
// came in between, it is read again and, still open and still the same
// plan, reviewed again. The API server refuses a review by the requester,
// a second one by the same user, or one in another's name.
func AddReview(ctx context.Context, dyn dynamic.Interface, shown *ChangeRequest, r Review, now time.Time) (*ChangeRequest, error) {
	r.Digest = shown.Spec.Plan.Digest
	if r.At.IsZero() {
		r.At = now.UTC().Truncate(time.Second)
	}
	if strings.TrimSpace(r.Reason) == "" {
		return nil, &actions.Refusal{Reason: "a review needs a reason: the requester and the audit read it"}
	}
	cur := shown
	for range 3 {
		if p, why := cur.State(now); p.Closed() || (p != Pending && p != Approved) {
			return nil, &ErrClosed{Phase: p, Why: why}
		}
		if cur.Spec.Plan.Digest != shown.Spec.Plan.Digest {
			return nil, errors.New("the request's plan is not the one shown: nothing written")
		}
		ops := []map[string]any{{"op": "test", "path": "/metadata/resourceVersion", "value": cur.ResourceVersion}}
		if len(cur.Reviews) == 0 {
			ops = append(ops, map[string]any{"op": "add", "path": "/spec/reviews", "value": []Review{r}})
		} else {
			ops = append(ops, map[string]any{"op": "add", "path": "/spec/reviews/-", "value": r})
		}
		body, err := json.Marshal(ops)
		if err != nil {
			return nil, err
		}
		out, err := dyn.Resource(GVR).Namespace(cur.Namespace).Patch(ctx, cur.Name, types.JSONPatchType, body, metav1.PatchOptions{FieldManager: "driftdeck"})
		if err == nil {
			return FromObject(out.Object)
		}
		if !actions.PreconditionFailed(err) {
			return nil, explain(err)
		}
		if cur, err = Get(ctx, dyn, shown.Namespace, shown.Name); err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("change request %s kept changing while the review was written: nothing written; try again", shown.Ref())
}

// explain says what a refusal of the API server means here.
func explain(err error) error {
	if apierrors.IsNotFound(err) && strings.Contains(err.Error(), "the server could not find the requested resource") {
		return fmt.Errorf("change requests are not installed in this cluster (no %s): an administrator applies deploy/change-requests/: %w", GVR.GroupResource(), err)
	}
	return err
}
