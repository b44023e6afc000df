// Command bench measures driftdeck at fleet scale on a real control plane
// (DESIGN.md section 6): it starts kube-apiserver and etcd with the GitOps
// CRDs, seeds 5,000 Applications, 1,000 Stacks, 700 Kustomizations, 300
// HelmReleases and 200 Terraforms, times the bare LIST of them (the floor), then driftdeck from exec to a complete model and a full
// screen, its memory, keystrokes under a stream of status changes, idle CPU,
// filtering and sorting, and prints one table. It exits non-zero only when it
// could not run, never because a figure missed its target.
//
//	go build -o /tmp/bench ./testdata/bench && /tmp/bench -out docs/benchmarks.md
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/driftdeck/driftdeck/testdata/bench/fleetgen"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"

	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

type options struct {
	fleetSize
	out        string
	driftdeck  string
	kubectl    string
	crds       string
	seed       string
	keys       int
	keyRate    float64
	churn      int
	idle       time.Duration
	binaryIdle time.Duration
	noBinary   bool
	profileDir string
	serve      bool
	starts     int

	clusters     int
	clusterUnits int
	slowLatency  time.Duration

	child       bool
	startOnly   bool
	kubeconfig  string
	contexts    string
	unreachable string

	serverMemLimit string
}

func main() {
	var o options
	flag.IntVar(&o.apps, "apps", 5000, "Argo CD Applications to create")
	flag.IntVar(&fleetgen.AppResources, "app-resources", fleetgen.AppResources, "resources of each Application (its status and last sync list them)")
	flag.IntVar(&fleetgen.AppHistory, "app-history", fleetgen.AppHistory, "history entries of each Application")
	flag.IntVar(&o.stacks, "stacks", 1000, "Pulumi Stacks to create (each with an Update)")
	flag.IntVar(&o.kustomizations, "kustomizations", 700, "Flux Kustomizations to create (0 with -helmreleases 0 -terraforms 0: the fleet before Flux and Terraform)")
	flag.IntVar(&o.helmReleases, "helmreleases", 300, "Flux HelmReleases to create")
	flag.IntVar(&o.terraforms, "terraforms", 200, "tofu-controller Terraforms to create")
	flag.IntVar(&o.copies, "copies", 1, "how many clusters share the fleet, each with its own ApplicationSets (set by -clusters for its child)")
	flag.StringVar(&o.out, "out", "", "also write the table (Markdown) to this file")
	flag.StringVar(&o.driftdeck, "driftdeck", "", "the driftdeck binary to measure (default: go build the repository)")
	flag.StringVar(&o.kubectl, "kubectl", "kubectl", "kubectl for the kubectl rows (skipped when not found)")
	flag.StringVar(&o.seed, "seed", "auto", "how the fleet is written: api (through the API server), etcd (into etcd directly, in bulk) or auto (etcd past 10,000 units)")
	flag.StringVar(&o.crds, "crds", "auto", "CRD set: upstream (../shared/crds), own (testdata/crds), or auto")
	flag.IntVar(&o.keys, "keys", 1200, "keystrokes to time")
	flag.Float64Var(&o.keyRate, "key-rate", 60, "keystrokes per second")
	flag.IntVar(&o.churn, "churn", 100, "status changes per second while keys are typed")
	flag.DurationVar(&o.idle, "idle", idleWindow, "how long to measure idle CPU in process")
	flag.DurationVar(&o.binaryIdle, "binary-idle", idleWindow, "how long to measure the binary's idle CPU (0 skips); /proc counts CPU in 10 ms ticks, so 0.5% of a core over 2 min is 60 of them")
	flag.BoolVar(&o.noBinary, "no-binary", false, "skip the runs of the built binary")
	flag.StringVar(&o.profileDir, "profile", "", "write CPU (start-up, keystrokes) and heap profiles of the in-process run here")
	flag.BoolVar(&o.serve, "serve", false, "only start and seed the cluster (with -clusters: every cluster, the slow proxy and the unreachable context), print its kubeconfig and keep it until interrupted (to investigate)")
	flag.IntVar(&o.starts, "starts", 3, "start-ups to time (each right after a bare LIST); medians are shown")
	flag.IntVar(&o.clusters, "clusters", 0, "run the several-cluster table instead: this many control planes at once (5 in make bench), one behind a slow proxy, plus an unreachable context")
	flag.StringVar(&o.serverMemLimit, "server-memlimit", "", "with -clusters: GOMEMLIMIT for the control planes alone (e.g. 700MiB), so that many API servers under churn fit the machine; driftdeck and the bench run without it")
	flag.IntVar(&o.clusterUnits, "cluster-units", 1200, "with -clusters: units per cluster, in the one-cluster fleet's mix")
	flag.DurationVar(&o.slowLatency, "slow-latency", 2*time.Second, "with -clusters: the latency the slow cluster's proxy adds in each direction")
	flag.BoolVar(&o.child, "child", false, "internal: be the measured process")
	flag.BoolVar(&o.startOnly, "start-only", false, "internal: the measured process stops at the full screen")
	flag.StringVar(&o.kubeconfig, "child-kubeconfig", "", "internal: the cluster of the measured process")
	flag.StringVar(&o.contexts, "child-contexts", "", "internal: the contexts the measured process watches")
	flag.StringVar(&o.unreachable, "child-unreachable", "", "internal: those of them that never answer")
	flag.Parse()
	if fleetgen.AppResources < 5 || fleetgen.AppHistory < 1 || fleetgen.AppHistory > 10 {
		fmt.Fprintln(os.Stderr, "bench: -app-resources takes 5 or more (a self-heal syncs up to 4 of them), -app-history 1 to 10")
		os.Exit(2)
	}

	if o.child {
		err := runChild(childOpts{startOnly: o.startOnly, kubeconfig: o.kubeconfig, contexts: o.contexts, unreachable: o.unreachable, units: o.units(), keys: o.keys,
			keyRate: o.keyRate, idle: o.idle, profileDir: o.profileDir})
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench (measured process):", err)
			os.Exit(1)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	runs := run
	if o.clusters > 0 {
		runs = runClusters
	}
	if err := runs(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[bench %s] %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

func run(ctx context.Context, o options) (err error) {
	began := time.Now()
	// Requests cut short at the end of a phase would log errors through
	// klog, which writes those to stderr whatever its output.
	klog.SetLogger(logr.Discard())
	r := &report{Size: o.fleetSize}
	r.noteMachineStart()

	root, err := testcluster.RepoRoot()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "driftdeck-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if o.driftdeck == "" && !o.noBinary && !o.serve {
		o.driftdeck = filepath.Join(tmp, "driftdeck")
		logf("building driftdeck")
		build := exec.CommandContext(ctx, "go", "build", "-o", o.driftdeck, ".")
		build.Dir, build.Stdout, build.Stderr = root, os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("go build: %w", err)
		}
	}

	logf("starting kube-apiserver and etcd")
	t := time.Now()
	cp, err := startControlPlane(root, o.crds)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, cp.Stop()) }()
	r.ControlPlaneStart, r.CRDs = time.Since(t), cp.CRDs
	logf("control plane up in %v (%s)", r.ControlPlaneStart.Round(time.Millisecond), cp.CRDs)

	logf("seeding %d Applications, %d Stacks, %d Kustomizations, %d HelmReleases and %d Terraforms",
		o.apps, o.stacks, o.kustomizations, o.helmReleases, o.terraforms)
	if r.Seed, err = seedFleet(ctx, cp, o.fleetSize, o.seed, time.Now()); err != nil {
		return fmt.Errorf("seeding: %w", err)
	}
	logf("seeded in %v (%d %s)", r.Seed.Duration.Round(time.Millisecond), r.Seed.Requests, r.Seed.How)

	if o.serve {
		logf("serving the seeded cluster until interrupted: KUBECONFIG=%s", cp.Kubeconfig)
		<-ctx.Done()
		return nil
	}

	logf("measuring the bare LISTs and kubectl")
	if r.Floor, err = measureFloor(ctx, cp.Config(), cp.Kubeconfig, o.kubectl, o.fleetSize); err != nil {
		return err
	}
	// The machine's load moves: each start-up is timed right after a bare
	// LIST of the same objects, and the medians are compared.
	for i := range max(o.starts, 1) {
		wall, server, err := listAll(ctx, cp.Config(), cp.APIServerPID, o.fleetSize)
		if err != nil {
			return err
		}
		r.Floor.All, r.Floor.AllServerCPU = append(r.Floor.All, wall), append(r.Floor.AllServerCPU, server)
		res, serverCPU, err := runMeasured(ctx, o, oneCluster(o, cp), r, true)
		if err != nil {
			return err
		}
		r.Starts = append(r.Starts, startSample{childResult: res, ServerCPU: serverCPU})
		logf("start %d: bare LISTs %v, driftdeck's full screen %v", i+1, wall.Round(time.Millisecond), res.FullScreen.Round(time.Millisecond))
	}

	logf("running driftdeck in process (idle %v, %d keys)", o.idle, o.keys)
	if r.Child, _, err = runMeasured(ctx, o, oneCluster(o, cp), r, false); err != nil {
		return err
	}

	if !o.noBinary {
		logf("running the driftdeck binary")
		r.measureBinary(binaryRun{bin: o.driftdeck, kubeconfig: cp.Kubeconfig, units: o.units(), runs: max(o.starts, 1),
			idle: o.binaryIdle, load: oneCluster(o, cp).churn, status: true})
	}

	return r.finish(o, began, r.markdown)
}

// measureBinary runs the driftdeck binary and keeps its figures in the
// report, or why they could not be taken: the table is written either way.
func (r *report) measureBinary(run binaryRun) {
	b, err := runBinary(run)
	if err != nil {
		r.BinaryError = err.Error()
		logf("binary run failed: %v", err)
		return
	}
	r.Binary = &b
}

// noteMachineStart records the machine the run is on and its load before
// anything starts.
func (r *report) noteMachineStart() {
	r.Machine.NProc, r.Machine.Go = runtime.NumCPU(), runtime.Version()
	_, r.Machine.CPU, r.Machine.LoadStart = machine()
}

// finish records the machine's load at the end and the time taken, then
// prints the table markdown draws and writes it to o.out if one is given.
func (r *report) finish(o options, began time.Time, markdown func() string) error {
	_, _, r.Machine.LoadEnd = machine()
	r.Machine.TotalTaken = time.Since(began)
	table := markdown()
	fmt.Print(table)
	if o.out != "" {
		if err := os.WriteFile(o.out, []byte(table), 0o644); err != nil {
			return err
		}
		logf("table written to %s", o.out)
	}
	return nil
}

// measuredSetup is what the measured process is pointed at: one cluster,
// or several at once.
type measuredSetup struct {
	kubeconfig            string
	contexts, unreachable string    // "": the kubeconfig's current context
	size                  fleetSize // every reachable cluster's together
	// serverPIDs are the API servers, whose CPU serving the start is read.
	serverPIDs []string
	// churn starts the status changes streamed while keys are typed.
	churn func() (churnGroup, error)
}

// serverCPU is the CPU every API server of the setup used so far.
func (m measuredSetup) serverCPU() (time.Duration, error) {
	var sum time.Duration
	for _, pid := range m.serverPIDs {
		cpu, err := cpuTime(pid)
		if err != nil {
			return 0, err
		}
		sum += cpu
	}
	return sum, nil
}

func oneCluster(o options, cp *controlPlane) measuredSetup {
	return measuredSetup{kubeconfig: cp.Kubeconfig, size: o.fleetSize, serverPIDs: []string{cp.APIServerPID},
		churn: func() (churnGroup, error) {
			ch, err := startChurn(cp.Config(), o.fleetSize, o.churn, churnWorkers)
			return churnGroup{ch}, err
		}}
}

// runMeasured runs the in-process part in a child process (its memory and
// CPU are then driftdeck's alone): start-up only, or everything, streaming
// status changes while it types. It returns the child's figures and the CPU
// the API servers spent from its exec to its full screen.
func runMeasured(ctx context.Context, o options, m measuredSetup, r *report, startOnly bool) (childResult, time.Duration, error) {
	var res childResult
	self, err := os.Executable()
	if err != nil {
		return res, 0, err
	}
	z := m.size
	args := []string{"-child", "-child-kubeconfig", m.kubeconfig, "-child-contexts", m.contexts, "-child-unreachable", m.unreachable,
		"-apps", strconv.Itoa(z.apps), "-stacks", strconv.Itoa(z.stacks),
		"-kustomizations", strconv.Itoa(z.kustomizations), "-helmreleases", strconv.Itoa(z.helmReleases), "-terraforms", strconv.Itoa(z.terraforms), "-copies", strconv.Itoa(max(z.copies, 1)),
		"-keys", strconv.Itoa(o.keys), "-key-rate", fmt.Sprint(o.keyRate), "-idle", o.idle.String()}
	if startOnly {
		args = append(args, "-start-only")
	} else if o.profileDir != "" {
		args = append(args, "-profile", o.profileDir)
	}
	cmd := exec.CommandContext(ctx, self, args...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return res, 0, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return res, 0, err
	}
	serverCPU0, _ := m.serverCPU()
	var serverCPU time.Duration
	cmd.Env = append(os.Environ(), envExecTime+"="+strconv.FormatInt(time.Now().UnixNano(), 10))
	if err := cmd.Start(); err != nil {
		return res, 0, err
	}
	var ch churnGroup
	var result []byte
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "started":
			if cpu, err := m.serverCPU(); err == nil {
				serverCPU = cpu - serverCPU0
			}
		case line == "churn":
			logf("streaming %d status changes a second while keys are typed", o.churn)
			if ch, err = m.churn(); err != nil {
				return res, 0, errors.Join(err, cmd.Process.Kill())
			}
			fmt.Fprintln(in, "go")
		case line == "stop" && ch != nil:
			r.Churn.Applied, r.Churn.Failed, r.Churn.Rate = ch.stop()
			fmt.Fprintln(in, "stopped")
		case strings.HasPrefix(line, "{"):
			result = []byte(line)
		}
	}
	if err := cmd.Wait(); err != nil {
		return res, 0, fmt.Errorf("the measured process: %w", err)
	}
	if result == nil {
		return res, 0, errors.New("the measured process reported nothing")
	}
	return res, serverCPU, json.Unmarshal(result, &res)
}
