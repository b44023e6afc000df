package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"sync"
	"time"

	"k8s.io/client-go/rest"
)

// The collections driftdeck lists at start, through the version it watches.
const (
	appsPath           = "/apis/argoproj.io/v1alpha1/applications"
	stacksPath         = "/apis/pulumi.com/v1/stacks"
	updatesPath        = "/apis/auto.pulumi.com/v1alpha1/updates"
	kustomizationsPath = "/apis/kustomize.toolkit.fluxcd.io/v1/kustomizations"
	helmReleasesPath   = "/apis/helm.toolkit.fluxcd.io/v2/helmreleases"
	terraformsPath     = "/apis/infra.contrib.fluxcd.io/v1alpha2/terraforms"
)

// collection is one LIST of the floor: what it holds and how many.
type collection struct {
	Kind, Path string
	Objects    int
}

// collections are the LISTs of a fleet of that size; an empty kind is not
// seeded, and driftdeck's LIST of it returns nothing, so it is left out.
func collections(size fleetSize) []collection {
	var out []collection
	for _, c := range []collection{
		{"Applications", appsPath, size.apps}, {"Stacks", stacksPath, size.stacks}, {"Updates", updatesPath, size.stacks},
		{"Kustomizations", kustomizationsPath, size.kustomizations}, {"HelmReleases", helmReleasesPath, size.helmReleases},
		{"Terraforms", terraformsPath, size.terraforms},
	} {
		if c.Objects > 0 {
			out = append(out, c)
		}
	}
	return out
}

// floorRuns is how often each bare LIST is repeated; the median is kept.
const floorRuns = 3

// listTime is one collection's bare LIST alone.
type listTime struct {
	collection
	Took  time.Duration
	Bytes int
}

// floorResult is the bare transfer of the objects driftdeck needs.
type floorResult struct {
	Lists []listTime // each LIST alone
	// All are every LIST at once, as driftdeck's watches start, one sample
	// before each measured start: the floor the start is compared with.
	// AllServerCPU is the CPU the API server spent serving them.
	All, AllServerCPU []time.Duration
	// KubectlRaw is `kubectl get --raw` of the Applications; KubectlJSON is
	// `kubectl get applications -A -o json`; zero when kubectl is missing.
	KubectlRaw, KubectlJSON time.Duration
	Kubectl                 string
}

// rawList reads one collection as bytes, the least any client can do.
func rawList(ctx context.Context, rc rest.Interface, path string) (int, time.Duration, error) {
	start := time.Now()
	b, err := rc.Get().AbsPath(path).DoRaw(ctx)
	return len(b), time.Since(start), err
}

func medianOf(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func measureFloor(ctx context.Context, cfg *rest.Config, kubeconfig, kubectl string, size fleetSize) (floorResult, error) {
	var res floorResult
	rc, err := newFastClient(cfg)
	if err != nil {
		return res, err
	}
	one := func(path string, size *int) (time.Duration, error) {
		var ds []time.Duration
		for range floorRuns {
			n, d, err := rawList(ctx, rc, path)
			if err != nil {
				return 0, fmt.Errorf("LIST %s: %w", path, err)
			}
			*size, ds = n, append(ds, d)
		}
		return medianOf(ds), nil
	}
	for _, c := range collections(size) {
		l := listTime{collection: c}
		if l.Took, err = one(c.Path, &l.Bytes); err != nil {
			return res, err
		}
		res.Lists = append(res.Lists, l)
	}
	if kubectl == "" {
		return res, nil
	}
	if _, err := exec.LookPath(kubectl); err != nil {
		return res, nil
	}
	res.Kubectl = kubectl
	timed := func(args ...string) (time.Duration, error) {
		cmd := exec.CommandContext(ctx, kubectl, append([]string{"--kubeconfig", kubeconfig}, args...)...)
		cmd.Stdout = io.Discard
		cmd.Stderr = os.Stderr
		start := time.Now()
		err := cmd.Run()
		return time.Since(start), err
	}
	if res.KubectlRaw, err = timed("get", "--raw", appsPath); err != nil {
		return res, fmt.Errorf("kubectl get --raw: %w", err)
	}
	if res.KubectlJSON, err = timed("get", "applications.argoproj.io", "-A", "-o", "json"); err != nil {
		return res, fmt.Errorf("kubectl get -o json: %w", err)
	}
	return res, nil
}

// listAll is every bare LIST at once, timed, with the CPU the API server
// spent on them.
func listAll(ctx context.Context, cfg *rest.Config, apiserver string, size fleetSize) (wall, server time.Duration, err error) {
	rc, err := newFastClient(cfg)
	if err != nil {
		return 0, 0, err
	}
	cpu0, _ := cpuTime(apiserver)
	start := time.Now()
	var wg sync.WaitGroup
	cs := collections(size)
	errs := make([]error, len(cs))
	for i, c := range cs {
		wg.Go(func() { _, _, errs[i] = rawList(ctx, rc, c.Path) })
	}
	wg.Wait()
	wall = time.Since(start)
	if cpu, err := cpuTime(apiserver); err == nil {
		server = cpu - cpu0
	}
	return wall, server, errors.Join(errs...)
}
