package sim

import (
	"context"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/driftdeck/driftdeck/backend/objread"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
)

// UpdateOutcome says how one Update of a Stack ends.
type UpdateOutcome struct {
	// FailWith makes the Update fail with this message (the Update's
	// status.message, copied to the Stack's lastUpdate.message).
	FailWith string
	// FailReason is the Failed condition's reason; "UpdateFailed" when empty
	// (an error of the pulumi run itself, a lock say, is "Unknown" upstream).
	FailReason string
	// Hang keeps the Update Progressing while it is so (the outcome is
	// asked again every UpdateDuration).
	Hang bool
}

// PulumiOptions configure the simulated Pulumi Kubernetes Operator (v2).
type PulumiOptions struct {
	// Namespace limits the Stacks and Updates watched; "" watches all.
	Namespace string
	// UpdateDuration is how long an Update runs.
	UpdateDuration time.Duration
	// Backoff is the first retry cooldown after a failed update, tripled per
	// further failure (10s upstream).
	Backoff time.Duration
	// Git answers where branches point; nil: branch-tracking Stacks stay at
	// their last commit.
	Git *Git
	// Outcome decides how each Update ends; nil: every Update succeeds.
	Outcome func(ctx context.Context, stack *unstructured.Unstructured, updateType string) UpdateOutcome
	// Events, when set, receives the operator's Events.
	Events kubernetes.Interface
	// OnError hears of failed writes (they are retried).
	OnError func(error)
}

func (o *PulumiOptions) defaults() {
	if o.UpdateDuration <= 0 {
		o.UpdateDuration = 3 * time.Second
	}
	if o.Backoff <= 0 {
		o.Backoff = 10 * time.Second
	}
}

const (
	stackManager  = "pulumi-kubernetes-operator/stack-status"
	updateManager = "pulumi-kubernetes-operator/update-status"
	// maxUpdateFailures is the operator's retry limit before Stalled/UpdateFailed.
	maxUpdateFailures = 3
)

// Pulumi is the simulated operator: its Stack controller and Update
// controller, over the same API objects as the real ones.
type Pulumi struct {
	dyn      dynamic.Interface
	opts     PulumiOptions
	stacks   *loop
	updates  *loop
	stackInf cache.SharedIndexInformer
	rec      recorder
	ready    chan struct{}

	mu sync.Mutex
	// began remembers when each Update started running here: startTime has
	// only second precision.
	began map[objectKey]time.Time
}

// NewPulumi returns an operator; Run starts it.
func NewPulumi(dyn dynamic.Interface, opts PulumiOptions) *Pulumi {
	opts.defaults()
	p := &Pulumi{dyn: dyn, opts: opts, ready: make(chan struct{}), began: map[objectKey]time.Time{},
		rec: recorder{kube: opts.Events, component: "pulumi-kubernetes-operator", onError: opts.OnError}}
	retry := retryAfter(opts.UpdateDuration)
	p.stacks = newLoop(p.reconcileStack, opts.OnError, retry)
	p.stackInf = p.stacks.inform(dyn, pulumiop.Stacks, opts.Namespace, selfKey)
	updates := p.stacks.inform(dyn, pulumiop.Updates, opts.Namespace, stackOfUpdate)
	p.updates = newLoop(p.reconcileUpdate, opts.OnError, retry)
	p.updates.follow(updates, selfKey)
	opts.Git.Subscribe(p.onPush)
	return p
}

func stackOfUpdate(u *unstructured.Unstructured) []objectKey {
	if s := u.GetLabels()[pulumiop.LabelStackName]; s != "" {
		return []objectKey{{u.GetNamespace(), s}}
	}
	return nil
}

// Run reconciles until ctx ends.
func (p *Pulumi) Run(ctx context.Context) error {
	done := make(chan struct{})
	// The stack loop runs the informers, the Update loop follows one of them.
	go func() { p.updates.run(ctx, 2, nil); close(done) }()
	p.stacks.run(ctx, 2, p.ready)
	<-done
	return nil
}

// Ready is closed once the operator has read every Stack and Update.
func (p *Pulumi) Ready() <-chan struct{} { return p.ready }

func (p *Pulumi) stackClient(ns string) dynamic.ResourceInterface {
	return p.dyn.Resource(pulumiop.Stacks).Namespace(ns)
}

func (p *Pulumi) updateClient(ns string) dynamic.ResourceInterface {
	return p.dyn.Resource(pulumiop.Updates).Namespace(ns)
}

// onPush queues the Stacks that track the pushed branch (the operator polls
// ls-remote; here the push tells it).
func (p *Pulumi) onPush(repo, ref, _ string) {
	for _, it := range p.stackInf.GetStore().List() {
		u := it.(*unstructured.Unstructured)
		r := objread.New(u.Object)
		if r.Str("spec", "branch") != "" && SameRepo(r.Str("spec", "projectRepo"), repo) && NormalizeRef(r.Str("spec", "branch")) == ref {
			p.stacks.queue.Add(objectKey{u.GetNamespace(), u.GetName()})
		}
	}
}

func (p *Pulumi) outcome(ctx context.Context, namespace, stack, typ string) UpdateOutcome {
	if p.opts.Outcome == nil {
		return UpdateOutcome{}
	}
	obj, err := p.stackClient(namespace).Get(ctx, stack, metav1.GetOptions{})
	if apierrors.IsNotFound(err) || err != nil {
		return UpdateOutcome{}
	}
	return p.opts.Outcome(ctx, obj, typ)
}
