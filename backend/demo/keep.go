package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// keptFormat is the version of the kept-state file; a file of another
// version is refused, never half read.
const keptFormat = 1

// keptState is what a demo keeps between runs: every object of the kinds
// its estate seeds, by resource.
type keptState struct {
	Format int `json:"format"`
	// Backend is the run's Pulumi state directory, which its Stacks name: a
	// kept Stack is pointed at the next run's (the same directory, unless
	// the file was kept by a demo that made a new one each run).
	Backend string                       `json:"backend"`
	Objects map[string][]json.RawMessage `json:"objects"`
}

// StateFile is where a demo keeps its objects in the state directory dir.
func StateFile(dir string) string { return filepath.Join(dir, "demo", "objects.json") }

// loadKept replaces the estate's objects by the kept ones; a missing file
// leaves the estate as it is.
func loadKept(path, backend string, objects map[schema.GroupVersionResource][]*unstructured.Unstructured) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var k keptState
	if err := json.Unmarshal(b, &k); err != nil || k.Format != keptFormat {
		return fmt.Errorf("the demo's kept state %s cannot be read (format %d, want %d; %v): `driftdeck --demo reset` starts the demo afresh", path, k.Format, keptFormat, err)
	}
	for gvr := range objects {
		objs, ok := k.Objects[gvr.String()]
		if !ok {
			continue
		}
		list := make([]*unstructured.Unstructured, 0, len(objs))
		for _, raw := range objs {
			if k.Backend != "" {
				raw = bytes.ReplaceAll(raw, []byte(k.Backend), []byte(backend))
			}
			// Through unstructured's decoder: numbers come back as int64,
			// as the server keeps them.
			o := &unstructured.Unstructured{}
			if err := o.UnmarshalJSON(raw); err != nil {
				return fmt.Errorf("the demo's kept state %s holds a %s it cannot read (%v): `driftdeck --demo reset` starts the demo afresh", path, gvr.Resource, err)
			}
			list = append(list, o)
		}
		objects[gvr] = list
	}
	return nil
}

// keeper saves a running demo's objects where the next run reads them.
type keeper struct {
	path      string
	backend   string
	dyn       dynamic.Interface
	resources []schema.GroupVersionResource
}

func (k *keeper) save(ctx context.Context) error {
	state := keptState{Format: keptFormat, Backend: k.backend, Objects: map[string][]json.RawMessage{}}
	for _, gvr := range k.resources {
		list, err := k.dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
		if err != nil {
			return fmt.Errorf("keeping the demo's %s: %w", gvr.Resource, err)
		}
		objs := make([]json.RawMessage, 0, len(list.Items))
		for _, o := range list.Items {
			b, err := o.MarshalJSON()
			if err != nil {
				return err
			}
			objs = append(objs, b)
		}
		state.Objects[gvr.String()] = objs
	}
	b, err := json.Marshal(state)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(k.path), 0o700); err != nil {
		return err
	}
	// Written whole, then renamed: a second demo saving at once, or one
	// killed mid-write, never leaves half a file.
	tmp, err := os.CreateTemp(filepath.Dir(k.path), ".objects-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), k.path)
}

func sortedResources(objects map[schema.GroupVersionResource][]*unstructured.Unstructured) []schema.GroupVersionResource {
	out := make([]schema.GroupVersionResource, 0, len(objects))
	for gvr := range objects {
		out = append(out, gvr)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// keepers are the demos of this process that keep their state.
var keepers struct {
	mu   sync.Mutex
	list []*keeper
}

// Keep saves the state of every demo of this process started with
// Options.StateDir, for the next run to start from.
func Keep(ctx context.Context) error {
	keepers.mu.Lock()
	defer keepers.mu.Unlock()
	var errs []error
	for _, k := range keepers.list {
		errs = append(errs, k.save(ctx))
	}
	return errors.Join(errs...)
}

// keptBackend is where a demo that keeps its state keeps its Pulumi state
// backend, in the state directory dir: a broken lock stays broken.
func keptBackend(dir string) string { return filepath.Join(dir, "demo", "pulumi-state") }

// backendDir is the demo's Pulumi state backend, written afresh when it
// does not exist. With a state directory it is kept there (temporary is
// ""): a demo that keeps its state finds the backend its objects name. Else
// it is a new temporary directory, also returned as temporary, removed at
// the end.
func backendDir(stateDir string, now time.Time) (dir, temporary string, err error) {
	if stateDir == "" {
		if dir, err = os.MkdirTemp("", "driftdeck-demo-state-"); err != nil {
			return "", "", err
		}
		stateDirs.add(dir)
		if err := (diyBackend{dir: dir}).write(now); err != nil {
			_ = os.RemoveAll(dir)
			return "", "", err
		}
		return dir, dir, nil
	}
	dir = keptBackend(stateDir)
	meta := filepath.Join(dir, ".pulumi", "meta.yaml")
	if _, err := os.Stat(meta); err == nil {
		return dir, "", nil
	}
	// Written whole beside it, then renamed: a demo starting at the same
	// moment (the workbench and a command) finds all of it or none.
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return "", "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".pulumi-state-")
	if err != nil {
		return "", "", err
	}
	defer os.RemoveAll(tmp)
	if err := (diyBackend{dir: tmp}).write(now); err != nil {
		return "", "", err
	}
	err = os.Rename(tmp, dir)
	if _, statErr := os.Stat(meta); err != nil && statErr == nil {
		return dir, "", nil // another demo wrote it first
	}
	if err != nil {
		// Something without a backend's meta.yaml is in the way (a run
		// killed while writing the clone cache): replaced.
		if err := os.RemoveAll(dir); err != nil {
			return "", "", err
		}
		err = os.Rename(tmp, dir)
	}
	return dir, "", err
}

// Reset forgets the state the demo kept in dir, its objects and its state
// backend: the next run starts from the estate. It says whether there was
// any.
func Reset(dir string) (bool, error) {
	_, statErr := os.Stat(keptBackend(dir))
	if err := os.RemoveAll(keptBackend(dir)); err != nil {
		return false, err
	}
	if err := resetRoots(dir); err != nil {
		return false, err
	}
	err := os.Remove(StateFile(dir))
	if errors.Is(err, os.ErrNotExist) {
		return statErr == nil, nil
	}
	return err == nil, err
}
