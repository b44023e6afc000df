package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/sim"
)

// heartbeat is where a test controller writes a counter into a unit's
// status, in a field the real controller rewrites (Argo CD's reconciledAt, the
// Pulumi operator's lastUpdate.lastResyncTime, kustomize-controller's
// lastAttemptedRevision), so that a write that clobbered status shows as the
// counter going back.
type heartbeat struct {
	gvr schema.GroupVersionResource
	// subresource: status is written through /status (Stack, Kustomization);
	// Argo CD's status is part of the object.
	subresource bool
	// update: the write is a read-modify-write with the object's version
	// (controller-runtime's Status().Update, as the Pulumi operator does),
	// retried on conflict; otherwise a merge patch, as Argo CD and Flux do.
	update bool
	path   []string
	encode func(n int) string
	decode func(s string) (int, error)
}

var heartbeatBase = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func timeCounter(n int) string {
	return heartbeatBase.Add(time.Duration(n) * time.Second).Format(time.RFC3339)
}

func timeCounterOf(s string) (int, error) {
	t, err := time.Parse(time.RFC3339, s)
	return int(t.Sub(heartbeatBase) / time.Second), err
}

func revisionCounter(n int) string { return fmt.Sprintf("main@sha1:%040d", n) }

func revisionCounterOf(s string) (int, error) {
	digits, ok := strings.CutPrefix(s, "main@sha1:")
	if !ok {
		return 0, fmt.Errorf("%q is not a counter revision", s)
	}
	return strconv.Atoi(digits)
}

var (
	argoHeartbeat  = heartbeat{gvr: argocd.Applications, path: []string{"status", "reconciledAt"}, encode: timeCounter, decode: timeCounterOf}
	stackHeartbeat = heartbeat{gvr: pulumiop.Stacks, subresource: true, update: true,
		path: []string{"status", "lastUpdate", "lastResyncTime"}, encode: timeCounter, decode: timeCounterOf}
	kustHeartbeat = heartbeat{gvr: flux.Kustomizations[0], subresource: true,
		path: []string{"status", "lastAttemptedRevision"}, encode: revisionCounter, decode: revisionCounterOf}
)

// counterOf reads the heartbeat counter of an object; -1 when absent.
func (h heartbeat) counterOf(obj map[string]any) (int, error) {
	s, found, _ := unstructured.NestedString(obj, h.path...)
	if !found {
		return -1, nil
	}
	return h.decode(s)
}

// statusWriter is a test controller: it rewrites the status of its units
// at a fixed rate in all, logging every write the API server
// accepted; it plays the controller's side of the requests driftdeck writes
// (finishes Argo CD operations and refreshes, notes reconcile requests); and
// it watches every unit to catch its counter ever going back.
type statusWriter struct {
	dyn   dynamic.Interface
	ns    string
	units []writerUnit

	mu sync.Mutex
	// writes: per unit, the writes the API server accepted (the log).
	writes map[string]int
	// conflicts: read-modify-write status updates that met a newer version.
	conflicts int
	// seen: per unit, the highest counter a watch event showed.
	seen map[string]int
	// backwards: every time a unit's counter went back.
	backwards []string
	// handled: the reasons of the Argo CD operations finished, and the
	// reconcile request tokens noted, per unit, in order.
	handled map[string][]string
	// inFlight: per unit, the counter of the last write whose answer was
	// lost (the server may or may not hold it).
	inFlight map[string]int
	// lostAnswers: why answers were lost before the controller stopped.
	lostAnswers []string
	errs        []string
	// relists: why the watch had to list again (a dropped slow watcher).
	relists []string

	// An Application's answers (a finish, a refresh handled) are written
	// beside the watch, one worker a unit, from the newest version the
	// watch showed (as a controller's work queue holds keys, not events):
	// answered in the watch, every event of a unit whose operation was not
	// yet finished sent a write, and on a busy machine the watch fell
	// minutes behind the writes (counter 405 of 868 seen).
	workers *sync.WaitGroup
	latest  map[string]*unstructured.Unstructured
	wake    map[string]chan struct{}
}

type writerUnit struct {
	name string
	hb   heartbeat
}

func newStatusWriter(dyn dynamic.Interface, ns string, units []writerUnit) *statusWriter {
	return &statusWriter{dyn: dyn, ns: ns, units: units, writes: map[string]int{}, seen: map[string]int{}, handled: map[string][]string{}, inFlight: map[string]int{},
		workers: &sync.WaitGroup{}, latest: map[string]*unstructured.Unstructured{}, wake: map[string]chan struct{}{}}
}

func (s *statusWriter) fail(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.errs) < 20 {
		s.errs = append(s.errs, fmt.Sprintf(format, args...))
	}
}

// run writes perSecond status updates in all until ctx ends, and watches.
func (s *statusWriter) run(ctx context.Context, perSecond int) *sync.WaitGroup {
	wg := s.workers
	gvrs := map[schema.GroupVersionResource]heartbeat{}
	for _, u := range s.units {
		gvrs[u.hb.gvr] = u.hb
	}
	for _, hb := range gvrs {
		wg.Go(func() { s.watch(ctx, hb) })
	}
	// One writer per unit, as a controller's workers: a slow write to one
	// unit does not hold up the others.
	every := time.Duration(len(s.units)) * time.Second / time.Duration(perSecond)
	for i, u := range s.units {
		wg.Go(func() {
			// Spread the units' writes over the period.
			select {
			case <-ctx.Done():
				return
			case <-time.After(every * time.Duration(i) / time.Duration(len(s.units))):
			}
			tick := time.NewTicker(every)
			defer tick.Stop()
			for {
				s.writeOne(ctx, u)
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
			}
		})
	}
	return wg
}

// writeOne writes the unit's next counter and logs it once accepted.
func (s *statusWriter) writeOne(ctx context.Context, u writerUnit) {
	s.mu.Lock()
	n := s.writes[u.name] + 1
	s.mu.Unlock()
	res := s.dyn.Resource(u.hb.gvr).Namespace(s.ns)
	var sub []string
	if u.hb.subresource {
		sub = []string{"status"}
	}
	for {
		var err error
		if u.hb.update {
			var obj *unstructured.Unstructured
			if obj, err = res.Get(ctx, u.name, metav1.GetOptions{}); err == nil {
				_ = unstructured.SetNestedField(obj.Object, u.hb.encode(n), u.hb.path...)
				_, err = res.UpdateStatus(ctx, obj, metav1.UpdateOptions{})
			}
		} else {
			patch := map[string]any{}
			_ = unstructured.SetNestedField(patch, u.hb.encode(n), u.hb.path...)
			body, _ := json.Marshal(patch)
			_, err = res.Patch(ctx, u.name, types.MergePatchType, body, metav1.PatchOptions{}, sub...)
		}
		switch {
		case err == nil:
			s.mu.Lock()
			s.writes[u.name] = n
			s.mu.Unlock()
			return
		case apierrors.IsConflict(err):
			s.mu.Lock()
			s.conflicts++
			s.mu.Unlock()
			continue
		case ctx.Err() != nil || answerMayBeLost(err):
			// The write was sent and its answer lost: the controller
			// stopped, or the server or the link gave out under load, as
			// they do on a busy machine. The server may hold it: the next
			// write sends the same counter again, and the check counts
			// what the server holds (ADR 0017).
			s.mu.Lock()
			s.inFlight[u.name] = n
			if ctx.Err() == nil && len(s.lostAnswers) < 20 {
				s.lostAnswers = append(s.lostAnswers, fmt.Sprintf("status write %d of %s: %v", n, u.name, err))
			}
			s.mu.Unlock()
			return
		}
		s.fail("status write %d of %s: %v", n, u.name, err)
		return
	}
}

// answerMayBeLost tells whether a failed write may yet be held by the
// server, or be sent again as it is: no answer came (the link), the server
// timed out, was overloaded or throttled the writer.
func answerMayBeLost(err error) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return true
	}
	return apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err) || apierrors.IsServiceUnavailable(err) ||
		apierrors.IsTooManyRequests(err) || apierrors.IsInternalError(err)
}

// watch follows one kind: every event's counter must be at least the last
// seen, and what the controller must answer (an operation, a refresh, a
// reconcile request) is answered or noted. As an informer does, it lists
// again when the watch cannot go on from where it was (a watch refused, or
// its resourceVersion expired after the server dropped a slow watcher on a
// busy machine), answering what the list shows: a watch resumed from an
// expired version would fail forever, and no operation would be finished.
func (s *statusWriter) watch(ctx context.Context, hb heartbeat) {
	res := s.dyn.Resource(hb.gvr).Namespace(s.ns)
	for ctx.Err() == nil {
		list, err := res.List(ctx, metav1.ListOptions{})
		if err != nil {
			if ctx.Err() == nil {
				s.relisted("listing %s: %v", hb.gvr.Resource, err)
				time.Sleep(100 * time.Millisecond)
			}
			continue
		}
		for i := range list.Items {
			s.observe(ctx, hb, &list.Items[i])
		}
		s.follow(ctx, hb, res, list.GetResourceVersion())
	}
}

// follow watches from rv, resuming after a plain close, until ctx ends or
// the watch cannot resume (then the caller lists again).
func (s *statusWriter) follow(ctx context.Context, hb heartbeat, res dynamic.ResourceInterface, rv string) {
	for ctx.Err() == nil {
		w, err := res.Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
		if err != nil {
			if ctx.Err() == nil {
				s.relisted("watching %s: %v", hb.gvr.Resource, err)
			}
			return
		}
		expired := false
		for ev := range w.ResultChan() {
			obj, ok := ev.Object.(*unstructured.Unstructured)
			if !ok {
				if ev.Type == watch.Error && ctx.Err() == nil {
					s.relisted("watch of %s: %v", hb.gvr.Resource, ev.Object)
					expired = true
				}
				continue
			}
			rv = obj.GetResourceVersion()
			s.observe(ctx, hb, obj)
		}
		w.Stop()
		if expired {
			return
		}
	}
}

// relisted logs why the controller listed again: not an error (a real
// controller does the same), but worth reading when a check fails.
func (s *statusWriter) relisted(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.relists) < 20 {
		s.relists = append(s.relists, fmt.Sprintf(format, args...))
	}
}

func (s *statusWriter) observe(ctx context.Context, hb heartbeat, obj *unstructured.Unstructured) {
	name := obj.GetName()
	n, err := hb.counterOf(obj.Object)
	s.mu.Lock()
	switch last, ok := s.seen[name]; {
	case err != nil:
		s.backwards = append(s.backwards, fmt.Sprintf("%s: unreadable counter: %v", name, err))
	case ok && n < last:
		s.backwards = append(s.backwards, fmt.Sprintf("%s: counter %d after %d (resourceVersion %s)", name, n, last, obj.GetResourceVersion()))
	default:
		s.seen[name] = n
	}
	s.mu.Unlock()
	ann := obj.GetAnnotations()
	switch hb.gvr {
	case argocd.Applications:
		s.answerLater(ctx, obj)
	case pulumiop.Stacks:
		s.note(name, ann[pulumiop.AnnotationReconcileRequest])
	default:
		s.note(name, ann[flux.AnnotationRequestedAt])
	}
}

// answerLater hands obj to its unit's worker, in place of what the worker
// has not taken yet.
func (s *statusWriter) answerLater(ctx context.Context, obj *unstructured.Unstructured) {
	name := obj.GetName()
	s.mu.Lock()
	s.latest[name] = obj
	wake, started := s.wake[name]
	if !started {
		wake = make(chan struct{}, 1)
		s.wake[name] = wake
		s.workers.Go(func() { s.answerUnit(ctx, name, wake) })
	}
	s.mu.Unlock()
	select {
	case wake <- struct{}{}:
	default: // woken already: it takes the newest
	}
}

// answerUnit answers the newest version of one Application each time it
// is woken, until ctx ends.
func (s *statusWriter) answerUnit(ctx context.Context, name string, wake <-chan struct{}) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-wake:
		}
		s.mu.Lock()
		obj := s.latest[name]
		delete(s.latest, name)
		s.mu.Unlock()
		if obj == nil {
			continue
		}
		s.finishOperation(ctx, obj)
		if level, ok := obj.GetAnnotations()[argocd.AnnotationRefresh]; ok {
			// reconciledAt is the heartbeat here: the writer keeps it.
			s.patch(ctx, argocd.Applications, name, sim.ArgoRefreshHandled(level, time.Time{}))
		}
	}
}

// note records a reconcile request token the first time it shows.
func (s *statusWriter) note(name, token string) {
	if token == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if h := s.handled[name]; len(h) == 0 || h[len(h)-1] != token {
		s.handled[name] = append(h, token)
	}
}

// finishOperation does what Argo CD's controller does with a requested
// sync (sim.ArgoOperationFinished) and notes its reason.
func (s *statusWriter) finishOperation(ctx context.Context, obj *unstructured.Unstructured) {
	op, ok, _ := unstructured.NestedMap(obj.Object, "operation")
	if !ok {
		return
	}
	reason := ""
	if info, _, _ := unstructured.NestedSlice(op, "info"); len(info) > 0 {
		reason, _ = info[0].(map[string]any)["value"].(string)
	}
	err := s.patch(ctx, argocd.Applications, obj.GetName(), sim.ArgoOperationFinished(op, time.Now()))
	if err != nil && ctx.Err() == nil && answerMayBeLost(err) {
		// The answer was lost under load, as for a status write: the server
		// may hold the finish, and then no later event brings this
		// operation again. Count what the server holds (ADR 0017).
		err = s.finishedOnServer(ctx, obj.GetName(), op)
	}
	if err == nil {
		s.note(obj.GetName(), reason)
	}
}

// finishedOnServer reads the Application back (again while the server
// cannot answer): nil when op is the operation finished there and no
// longer the one requested.
func (s *statusWriter) finishedOnServer(ctx context.Context, name string, op map[string]any) error {
	for {
		o, err := s.dyn.Resource(argocd.Applications).Namespace(s.ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil && ctx.Err() == nil && answerMayBeLost(err) {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		if err != nil {
			return err
		}
		// Only this watch finishes operations, so none came after ours
		// yet; driftdeck may have requested the next one already.
		done, _, _ := unstructured.NestedFieldNoCopy(o.Object, "status", "operationState", "operation")
		if !reflect.DeepEqual(done, op) || reflect.DeepEqual(o.Object["operation"], op) {
			return fmt.Errorf("the operation of %s is not finished on the server", name)
		}
		return nil
	}
}

// patch sends a JSON patch; a failed test means the object moved on (a
// later event brings it again) and is not an error, nor is an answer lost
// under load (a later event brings a refresh again, a finish is read back).
func (s *statusWriter) patch(ctx context.Context, gvr schema.GroupVersionResource, name string, ops []map[string]any) error {
	body, _ := json.Marshal(ops)
	_, err := s.dyn.Resource(gvr).Namespace(s.ns).Patch(ctx, name, types.JSONPatchType, body, metav1.PatchOptions{})
	if err != nil && ctx.Err() == nil && !apierrors.IsInvalid(err) && !apierrors.IsNotFound(err) && !answerMayBeLost(err) {
		s.fail("answering %s: %v", name, err)
	}
	return err
}

// total is the number of writes the controller made.
func (s *statusWriter) total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, w := range s.writes {
		n += w
	}
	return n
}
