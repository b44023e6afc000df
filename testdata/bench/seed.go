package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/driftdeck/driftdeck/testdata/bench/fleetgen"
)

// seedWorkers is how many creates are in flight: enough to keep the API
// server busy on a small machine without drowning it.
const seedWorkers = 12

// seedResult says what seeding took.
type seedResult struct {
	Duration time.Duration
	Requests int64
	// How names the way: requests to the API server, or etcd transactions.
	How string
}

// seedDirectPast is the fleet size above which auto seeds etcd directly:
// through the API server 70,000 units take most of an hour on two cores.
const seedDirectPast = 10000

// seedFleet seeds the fleet the way asked (api, etcd, or auto: etcd for
// fleets of more than seedDirectPast units).
func seedFleet(ctx context.Context, cp *controlPlane, size fleetSize, how string, now time.Time) (seedResult, error) {
	switch {
	case how == "etcd" || (how == "auto" && size.units() > seedDirectPast):
		return seedEtcd(ctx, cp, size, now)
	case how == "api" || how == "auto":
		return seed(ctx, cp.Config(), size, now)
	}
	return seedResult{}, fmt.Errorf("-seed %q: want auto, api or etcd", how)
}

// newFastClient is a raw REST client with client-side throttling lifted.
func newFastClient(cfg *rest.Config) (rest.Interface, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = 5000, 10000
	cfg.UserAgent = "driftdeck-bench"
	cfg.WarningHandler = rest.NoWarnings{} // the upstream finalizer name draws one per create
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return kc.CoreV1().RESTClient(), nil
}

// seed creates the fleet: namespaces, then Applications, Stacks (and their
// status) and Updates (and their status), Kustomizations, HelmReleases and
// Terraforms (and their status), many at a time.
func seed(ctx context.Context, cfg *rest.Config, size fleetSize, now time.Time) (seedResult, error) {
	start := time.Now()
	rc, err := newFastClient(cfg)
	if err != nil {
		return seedResult{}, err
	}
	if err := makeNamespaces(ctx, cfg); err != nil {
		return seedResult{}, err
	}

	var requests atomic.Int64
	post := func(path string, obj map[string]any) error {
		body, err := json.Marshal(obj)
		if err != nil {
			return err
		}
		requests.Add(1)
		return rc.Post().AbsPath(path).SetHeader("Content-Type", "application/json").Body(body).Do(ctx).Error()
	}
	patchStatus := func(path, name string, status map[string]any) error {
		body, err := json.Marshal(status)
		if err != nil {
			return err
		}
		requests.Add(1)
		return rc.Patch(types.MergePatchType).AbsPath(path, name, "status").Body(body).Do(ctx).Error()
	}
	// createWithStatus creates obj, then writes its status subresource with
	// a PUT of the object the create returned, as UpdateStatus does.
	createWithStatus := func(path string, obj, status map[string]any) error {
		body, err := json.Marshal(obj)
		if err != nil {
			return err
		}
		requests.Add(1)
		created, err := rc.Post().AbsPath(path).SetHeader("Content-Type", "application/json").Body(body).DoRaw(ctx)
		if err != nil {
			return err
		}
		var got map[string]any
		if err := json.Unmarshal(created, &got); err != nil {
			return err
		}
		got["status"] = status
		if body, err = json.Marshal(got); err != nil {
			return err
		}
		requests.Add(1)
		return rc.Put().AbsPath(path, name(got), "status").SetHeader("Content-Type", "application/json").Body(body).Do(ctx).Error()
	}
	jobs := make(chan func() error, seedWorkers)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	for range seedWorkers {
		wg.Go(func() {
			for job := range jobs {
				if err := job(); err != nil {
					mu.Lock()
					if len(errs) < 5 {
						errs = append(errs, err)
					}
					mu.Unlock()
				}
			}
		})
	}
	// The ApplicationSets first, as they exist before what they generate.
	for _, set := range fleetgen.AppSets(size.apps) {
		jobs <- func() error {
			obj, status := fleetgen.ApplicationSet(set[0], set[1], now)
			if err := createWithStatus("/apis/argoproj.io/v1alpha1/namespaces/"+set[0]+"/applicationsets", obj, status); err != nil {
				return fmt.Errorf("applicationset %s/%s: %w", set[0], set[1], err)
			}
			return nil
		}
	}
	// Interleave the kinds so every watch cache grows together, as in a
	// live cluster.
	apps, stacks := size.apps, size.stacks
	for i := range size.largest() {
		if ctx.Err() != nil {
			break
		}
		if i < apps {
			jobs <- func() error {
				obj := fleetgen.Application(i, now)
				path := "/apis/argoproj.io/v1alpha1/namespaces/" + fleetgen.AppNamespaceOf(i) + "/applications"
				if err := post(path, obj); err != nil {
					return fmt.Errorf("application %d: %w", i, err)
				}
				return nil
			}
		}
		if i < stacks {
			jobs <- func() error {
				stack, stackStatus, update, updateStatus := fleetgen.Stack(i, now)
				ns := fleetgen.StackNamespaceOf(i)
				stacksPath := "/apis/pulumi.com/v1/namespaces/" + ns + "/stacks"
				updatesPath := "/apis/auto.pulumi.com/v1alpha1/namespaces/" + ns + "/updates"
				steps := []func() error{
					func() error { return post(updatesPath, update) },
					func() error { return patchStatus(updatesPath, name(update), updateStatus) },
					func() error { return post(stacksPath, stack) },
					func() error { return patchStatus(stacksPath, name(stack), stackStatus) },
				}
				for _, step := range steps {
					if err := step(); err != nil {
						return fmt.Errorf("stack %d: %w", i, err)
					}
				}
				return nil
			}
		}
		if i < size.kustomizations {
			jobs <- func() error {
				obj, status := fleetgen.Kustomization(i, now)
				path := "/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/" + fleetgen.FluxNamespaceOf(i) + "/kustomizations"
				if err := createWithStatus(path, obj, status); err != nil {
					return fmt.Errorf("kustomization %d: %w", i, err)
				}
				return nil
			}
		}
		if i < size.helmReleases {
			jobs <- func() error {
				obj, status := fleetgen.HelmRelease(i, now)
				path := "/apis/helm.toolkit.fluxcd.io/v2/namespaces/" + fleetgen.FluxNamespaceOf(i) + "/helmreleases"
				if err := createWithStatus(path, obj, status); err != nil {
					return fmt.Errorf("helmrelease %d: %w", i, err)
				}
				return nil
			}
		}
		if i < size.terraforms {
			jobs <- func() error {
				obj, status := fleetgen.Terraform(i, now)
				path := "/apis/infra.contrib.fluxcd.io/v1alpha2/namespaces/" + fleetgen.TerraformNamespaceOf(i) + "/terraforms"
				if err := createWithStatus(path, obj, status); err != nil {
					return fmt.Errorf("terraform %d: %w", i, err)
				}
				return nil
			}
		}
	}
	close(jobs)
	wg.Wait()
	res := seedResult{Duration: time.Since(start), Requests: requests.Load(), How: fmt.Sprintf("requests to the API server, %d at a time", seedWorkers)}
	if err := errors.Join(errs...); err != nil {
		return res, err
	}
	return res, ctx.Err()
}

// makeNamespaces makes the namespaces the fleet's objects are in.
func makeNamespaces(ctx context.Context, cfg *rest.Config) error {
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	for _, ns := range append([]string{fleetgen.AppNamespace, fleetgen.FluxNamespace}, fleetgen.TeamNamespaces()...) {
		_, err := kc.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("namespace %s: %w", ns, err)
		}
	}
	return nil
}

func name(obj map[string]any) string {
	n, _ := obj["metadata"].(map[string]any)["name"].(string)
	return n
}
