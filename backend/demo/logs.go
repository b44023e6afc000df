package demo

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/logs"
	"github.com/driftdeck/driftdeck/backend/objread"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
)

// The demo's logs: every Stack's workspace pod (the running one's update
// progresses line by line while followed), vpc-network's runner pod (the
// plan it made), the Flux controllers' pods (controllerlog.go), the pod of the stuck sync's hook
// Job (retrying for ever), the StatefulSet pod it waits for (its heap
// exhausted, with a previous instance) whose Secret value the log prints
// and driftdeck masks, the crash-looping payments-api pod, and a plain log
// for every other pod. The demo has no kubelet: its logs are scripts served
// through the same logs.Opener the API server's are.
const (
	hookPod        = hookJob + "-8kq2d"
	waitedPod      = appStuck + "-2" // the StatefulSet pod that is not ready
	crashingPod    = "payments-api-6d9f7c5b8-x2x9q"
	indexerSecret  = appStuck + "-es"
	demoESPassword = "Xq7-demo-elastic-4f1a" // printed by the indexer's log, masked on screen
)

// podLog is one container's script: history is written at once, live one
// line per tick while followed (ok false ends it), previous is the last
// terminated instance's log.
type podLog struct {
	history  []string
	live     func(i int) (string, bool)
	previous []string
	// written is how long before the demo started the history was written
	// (its lines' time stamps); zero: as it is read.
	written time.Duration
}

// demoLogs serves the scripts by "<namespace>/<pod>/<container>".
type demoLogs struct {
	every time.Duration
	byKey map[string]podLog
}

var demoLogSources sync.Map // *kube.Cluster -> *demoLogs

// LogOpener is the log source of a demo cluster; nil for any other, whose
// logs come from its API server.
func LogOpener(c *kube.Cluster) logs.Opener {
	if d, ok := demoLogSources.Load(c); ok {
		return d.(*demoLogs)
	}
	return nil
}

func registerLogs(ctx context.Context, c *kube.Cluster, d *demoLogs) {
	demoLogSources.Store(c, d)
	go func() {
		<-ctx.Done()
		demoLogSources.Delete(c)
	}()
}

// openFor is the demo cluster's kube.Cluster.PodLogs: the scripts, read as
// the API server's pods/log would serve them.
func (d *demoLogs) openFor(c *kube.Cluster) func(ctx context.Context, namespace, pod string, o *corev1.PodLogOptions) (io.ReadCloser, error) {
	return func(ctx context.Context, namespace, pod string, o *corev1.PodLogOptions) (io.ReadCloser, error) {
		opts := logs.Options{Container: o.Container, Follow: o.Follow, Previous: o.Previous, Timestamps: o.Timestamps, Tail: -1}
		if o.TailLines != nil {
			opts.Tail = *o.TailLines
		}
		if o.SinceSeconds != nil {
			opts.Since = time.Duration(*o.SinceSeconds) * time.Second
		}
		return d.Open(ctx, c, logs.PodRef{Context: c.Context, Namespace: namespace, Name: pod}, opts)
	}
}

func (d *demoLogs) Open(ctx context.Context, _ *kube.Cluster, p logs.PodRef, o logs.Options) (io.ReadCloser, error) {
	script, ok := d.byKey[p.Namespace+"/"+p.Name+"/"+o.Container]
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("container %q in pod %q is waiting to start: PodInitializing", o.Container, p.Name))
	}
	lines := script.history
	if o.Previous {
		if script.previous == nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("previous terminated container %q in pod %q not found", o.Container, p.Name))
		}
		lines = script.previous
	}
	if o.Tail >= 0 && int(o.Tail) < len(lines) {
		lines = lines[len(lines)-int(o.Tail):]
	}
	pr, pw := io.Pipe()
	go func() {
		written := time.Now().Add(-script.written)
		write := func(l string) bool {
			if o.Timestamps {
				l = written.UTC().Format(time.RFC3339Nano) + " " + l
			}
			_, err := io.WriteString(pw, l+"\n")
			return err == nil
		}
		for _, l := range lines {
			if !write(l) {
				return
			}
		}
		if !o.Follow || o.Previous || script.live == nil {
			_ = pw.Close()
			return
		}
		tick := time.NewTicker(d.every)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-ctx.Done():
				_ = pw.CloseWithError(ctx.Err())
				return
			case <-tick.C:
			}
			written = time.Now()
			l, more := script.live(i)
			if !more {
				<-ctx.Done() // a finished container's log stays open while followed, as kubectl's
				_ = pw.CloseWithError(ctx.Err())
				return
			}
			if !write(l) {
				return
			}
		}
	}()
	return pr, nil
}

// logPods adds every Stack's workspace pod, named and labelled as the
// Pulumi operator v2 makes them, and vpc-network's runner pod; and gives the search-indexer pods (and the
// hook's) the Secret their logs print.
func (e *estate) logPods() {
	for _, s := range e.objects[pulumiop.Stacks] {
		ns, ws := s.GetNamespace(), s.GetName()
		pod := e.object("v1", "Pod", ns, ws+"-workspace-0", e.ownerRef("apps/v1", "StatefulSet", ns, ws+"-workspace"), map[string]any{
			"spec": map[string]any{"initContainers": []any{map[string]any{"name": "bootstrap"}}, "containers": []any{map[string]any{"name": "pulumi"}}},
			"status": map[string]any{"phase": "Running", "conditions": []any{map[string]any{"type": "Ready", "status": "True"}},
				"containerStatuses": []any{map[string]any{"name": "pulumi", "ready": true, "state": map[string]any{"running": map[string]any{}}}}},
		})
		pod["metadata"].(map[string]any)["labels"] = map[string]any{"auto.pulumi.com/component": "workspace", "auto.pulumi.com/workspace-name": ws}
		if ws == stackLocked {
			e.killedForMemory(pod)
		}
		e.add(podsGVR, pod)
	}
	e.add(podsGVR, e.runnerPodObject())
	for _, p := range e.controllerPodObjects() {
		e.add(podsGVR, p)
	}
	env := []any{map[string]any{"name": "ELASTIC_PASSWORD", "valueFrom": map[string]any{"secretKeyRef": map[string]any{"name": indexerSecret, "key": "password"}}}}
	for _, p := range e.objects[podsGVR] {
		if name := p.GetName(); name == hookPod || strings.HasPrefix(name, appStuck+"-") {
			for _, c := range objread.New(p.Object).Slice("spec", "containers") {
				c.(map[string]any)["env"] = env
			}
		}
	}
}

// killedForMemory: the run that left network-prod's state locked died when
// the kernel killed its workspace for memory (the container restarted).
func (e *estate) killedForMemory(pod map[string]any) {
	c := objread.New(pod).Objects("spec", "containers")[0]
	c.Map()["resources"] = map[string]any{"limits": map[string]any{"memory": "512Mi"}, "requests": map[string]any{"memory": "256Mi"}}
	st := objread.New(pod).Objects("status", "containerStatuses")[0].Map()
	st["restartCount"] = int64(1)
	st["lastState"] = map[string]any{"terminated": map[string]any{"reason": "OOMKilled", "exitCode": int64(137),
		"startedAt": e.ago(14 * time.Minute), "finishedAt": e.ago(9 * time.Minute)}}
}

// logScripts gives every demo pod's containers a log.
func (e *estate) logScripts(every time.Duration) *demoLogs {
	d := &demoLogs{every: every, byKey: map[string]podLog{}}
	running := map[string]bool{}
	for _, s := range e.objects[pulumiop.Stacks] {
		if objread.New(s.Object).Str("status", "currentUpdate", "name") != "" && s.GetName() == stackRunning {
			running[s.GetNamespace()+"/"+s.GetName()+"-workspace-0"] = true
		}
	}
	stackOf := map[string]string{}
	for _, s := range e.objects[pulumiop.Stacks] {
		stackOf[s.GetNamespace()+"/"+s.GetName()+"-workspace-0"] = objread.New(s.Object).Str("spec", "stack")
	}
	for _, p := range e.objects[podsGVR] {
		pod := p.GetNamespace() + "/" + p.GetName()
		controller, isController := e.controllerLogOf(p.GetName())
		for _, c := range objread.New(p.Object).Objects("spec", "containers") {
			container := c.Str("name")
			key := pod + "/" + container
			switch {
			case p.GetName() == stackHung+"-workspace-0":
				d.byKey[key] = hungLog(stackOf[pod])
				d.byKey[pod+"/bootstrap"] = podLog{history: []string{"copying the agent to /share/agent", "done"}}
			case stackOf[pod] != "":
				d.byKey[key] = workspaceLog(stackOf[pod], running[pod])
				d.byKey[pod+"/bootstrap"] = podLog{history: []string{"copying the agent to /share/agent", "done"}}
			case p.GetName() == hookPod:
				d.byKey[key] = hookLog()
			case p.GetName() == waitedPod:
				d.byKey[key] = indexerLog()
			case p.GetName() == crashingPod:
				d.byKey[key] = crashLog()
			case p.GetName() == runnerPod:
				d.byKey[key] = runnerLog()
			case isController:
				d.byKey[key] = controller
			default:
				d.byKey[key] = serviceLog(container)
			}
		}
	}
	return d
}

// seedLogs stores the Secret the indexer's log prints and returns every
// pod's script.
func (e *estate) seedLogs(ctx context.Context, kc kubernetes.Interface, every time.Duration) (*demoLogs, error) {
	for _, app := range e.objects[argocd.Applications] {
		if app.GetName() != appStuck {
			continue
		}
		ns := objread.New(app.Object).Str("spec", "destination", "namespace")
		_, err := kc.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: indexerSecret},
			Data:       map[string][]byte{"password": []byte(demoESPassword)},
		}, metav1.CreateOptions{})
		if err != nil {
			return nil, err
		}
	}
	return e.logScripts(every), nil
}

// workspaceLog is the agent's log of `pulumi up`: the last update's output,
// and for the running Stack its update progressing while followed.
func workspaceLog(stack string, running bool) podLog {
	project := strings.Split(stack+"//", "/")[1]
	resources := []string{"kubernetes:core/v1:Namespace " + project, "kubernetes:apps/v1:Deployment ingress-nginx", "kubernetes:core/v1:Service ingress-nginx",
		"kubernetes:networking.k8s.io/v1:IngressClass nginx", "kubernetes:helm.sh/v3:Release cert-manager"}
	history := []string{
		"INFO agent serving on :50051 (workspace /share/workspace)",
		"INFO Updating (" + stack + ")",
		"",
		"    pulumi:pulumi:Stack " + project + " running",
	}
	for _, r := range resources {
		history = append(history, "    "+r+" ")
	}
	history = append(history, "    pulumi:pulumi:Stack "+project+" ", "", "Resources:", fmt.Sprintf("    %d unchanged", len(resources)+1), "", "Duration: 14s")
	log := podLog{history: history}
	if !running {
		return log
	}
	live := []string{"", "INFO Updating (" + stack + ")", "", "    pulumi:pulumi:Stack " + project + " running"}
	for _, r := range resources[:2] {
		live = append(live, " ~  "+r+" updating (0s)", " ~  "+r+" updating (3s) [1/2] Waiting for app ReplicaSet be marked available", " ~  "+r+" updated (7s)")
	}
	live = append(live, " +  kubernetes:policy/v1:PodDisruptionBudget ingress-nginx creating (0s)", " +  kubernetes:policy/v1:PodDisruptionBudget ingress-nginx created (1s)",
		"    pulumi:pulumi:Stack "+project+" ", "", "Outputs:", `    ingressClass: "nginx"`, "", "Resources:", "    + 1 created", "    ~ 2 updated", fmt.Sprintf("    %d unchanged", len(resources)-1), "", "Duration: 19s")
	log.live = func(i int) (string, bool) {
		if i >= len(live) {
			return "", false
		}
		return live[i], true
	}
	return log
}

// hookLog: the reindex Job waits for the indexer that never gets ready.
func hookLog() podLog {
	history := []string{"reindex: 14,203,112 documents in 12 shards", "shard 1/12 done (1,183,592 docs)", "shard 2/12 done (1,184,020 docs)"}
	for a := 1; a <= 40; a++ {
		history = append(history, retryLine(a))
	}
	return podLog{history: history, live: func(i int) (string, bool) { return retryLine(41 + i), true }}
}

func retryLine(attempt int) string {
	return fmt.Sprintf("shard 3/12: waiting for %s:9200 (attempt %d): dial tcp 10.42.3.17:9200: connect: connection refused", waitedPod, attempt)
}

// crashLog: payments-api exits at start, every time.
func crashLog() podLog {
	run := []string{
		`{"level":"info","msg":"payments-api 2.14.0 starting","port":8080}`,
		`{"level":"info","msg":"connecting to postgres","host":"payments-db.team-payments.svc:5432"}`,
		`{"level":"fatal","msg":"migrations: relation \"ledger_entries\" already exists (SQLSTATE 42P07)","exit":1}`,
	}
	return podLog{history: run, previous: run}
}

// serviceLog is a healthy service's access log.
func serviceLog(name string) podLog {
	return podLog{
		history: []string{name + " listening on :8080", "GET /healthz 200 0.4ms", "GET /readyz 200 0.3ms"},
		live: func(i int) (string, bool) {
			return fmt.Sprintf("GET /healthz 200 0.%dms", 3+i%5), true
		},
	}
}

// indexerLog: Elasticsearch runs out of heap; it prints its password.
func indexerLog() podLog {
	start := []string{
		"[o.e.n.Node] version[8.15.1], pid[7], build[docker]",
		"[o.e.x.s.a.s.FileRealm] bootstrap: elastic user password set to " + demoESPassword,
		"[o.e.n.Node] starting ...",
		"[o.e.m.j.JvmGcMonitorService] [gc][41] overhead, spent [4.1s] collecting in the last [4.3s]",
	}
	return podLog{
		history:  append(append([]string(nil), start...), "[o.e.i.b.HierarchyCircuitBreakerService] attempting to trigger G1GC due to high heap usage [1021313544]"),
		previous: append(append([]string(nil), start...), "java.lang.OutOfMemoryError: Java heap space", "fatal error in thread [elasticsearch["+waitedPod+"][write][T#3]], exiting"),
		live: func(i int) (string, bool) {
			return fmt.Sprintf("[o.e.m.j.JvmGcMonitorService] [gc][%d] overhead, spent [4.%ds] collecting in the last [4.4s]", 42+i, i%4), true
		},
	}
}
