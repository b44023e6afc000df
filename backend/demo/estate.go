package demo

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/driftdeck/driftdeck/backend/sim"
)

// estate is the demo's world at start: the objects to seed, the branches
// they track, and how the simulated controllers treat the scenario objects.
type estate struct {
	now     time.Time
	git     *sim.Git
	diy     diyBackend
	objects map[schema.GroupVersionResource][]*unstructured.Unstructured
	uids    map[string]string // kind/namespace/name -> uid, for owner references

	appBehavior map[string]sim.AppBehavior // namespace/name
	// churn lists what the drifter may touch: apps whose branch it pushes to
	// and self-healing apps it edits by hand; scenario objects are left alone.
	pushTargets []pushTarget
	handEdits   []appRef
	stackPushes []pushTarget
	// pods reads the demo cluster's pods once it runs (the hung update
	// lives while its workspace pod does).
	pods func(ctx context.Context, namespace, name string) bool
}

type appRef struct{ namespace, name string }

type pushTarget struct{ repo, ref, path string }

func newEstate(now time.Time, diy diyBackend) *estate {
	return &estate{
		now:         now,
		diy:         diy,
		git:         sim.NewGit(),
		objects:     map[schema.GroupVersionResource][]*unstructured.Unstructured{},
		uids:        map[string]string{},
		appBehavior: map[string]sim.AppBehavior{},
	}
}

func (e *estate) add(gvr schema.GroupVersionResource, obj map[string]any) {
	e.objects[gvr] = append(e.objects[gvr], &unstructured.Unstructured{Object: obj})
}

// uid returns a stable uid for an object, so owners and owned agree.
func (e *estate) uid(kind, namespace, name string) string {
	k := kind + "/" + namespace + "/" + name
	if u, ok := e.uids[k]; ok {
		return u
	}
	h := commit("uid", k)
	u := h[0:8] + "-" + h[8:12] + "-4" + h[13:16] + "-a" + h[17:20] + "-" + h[20:32]
	e.uids[k] = u
	return u
}

// ago renders a time d before the estate's start.
func (e *estate) ago(d time.Duration) string { return e.now.Add(-d).UTC().Format(time.RFC3339) }

// commit makes a stable 40-hex commit id from words.
func commit(words ...string) string {
	sum := sha1.Sum([]byte(strings.Join(words, "\x00")))
	return hex.EncodeToString(sum[:])
}

// rng returns a generator seeded by a name, so every object is the same at
// every start.
func rng(name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(h.Sum64(), 0x5eed))
}

func lower(s string) string { return strings.ToLower(s) }

func metadata(namespace, name string, extra map[string]any) map[string]any {
	md := map[string]any{"name": name}
	if namespace != "" {
		md["namespace"] = namespace
	}
	for k, v := range extra {
		md[k] = v
	}
	return md
}

func strs(ss ...string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func version(r *rand.Rand) string {
	return fmt.Sprintf("v%d.%d.%d", 1+r.IntN(3), r.IntN(40), r.IntN(12))
}
