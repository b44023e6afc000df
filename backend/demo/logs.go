package demo

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/logs"
	"github.com/driftdeck/driftdeck/backend/objread"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
)

// The demo's pods and their logs: every Stack's workspace pod (the running
// one's update progresses line by line while followed), the Job of the
// stuck sync's hook (retrying for ever) and the StatefulSet pod it waits
// for (crash-looping, with a previous container), whose Secret value the
// log prints and driftdeck masks. The demo has no kubelet: its logs are
// scripts served through the same logs.Opener the API server's are.
const (
	hookJob       = appStuck + "-reindex"
	hookPod       = hookJob + "-7xk2p"
	indexerPod    = appStuck + "-0"
	indexerSecret = appStuck + "-es"
	// demoESPassword is printed by the indexer's log and masked on screen.
	demoESPassword = "Xq7-demo-elastic-4f1a"
)

// podLog is one container's script: history is written at once, live one
// line per tick while followed (ok false ends it), previous is the last
// terminated instance's log.
type podLog struct {
	history  []string
	live     func(i int) (string, bool)
	previous []string
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
		write := func(l string) bool { _, err := io.WriteString(pw, l+"\n"); return err == nil }
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

// addHungHook makes the stuck sync's operation wait on a Sync hook Job, as
// Argo CD reports one in syncResult.
func (e *estate) addHungHook() {
	for _, app := range e.objects[argocd.Applications] {
		if app.GetName() != appStuck {
			continue
		}
		op := app.Object["status"].(map[string]any)["operationState"].(map[string]any)
		op["syncResult"] = map[string]any{"revision": "main", "resources": []any{map[string]any{
			"group": "batch", "version": "v1", "kind": "Job", "namespace": destNamespace(app), "name": hookJob,
			"status": "Synced", "hookType": "Sync", "hookPhase": "Running", "syncPhase": "Sync",
			"message": "job " + hookJob + " is running (waiting for " + indexerPod + ")",
		}}}
	}
}

func destNamespace(app *unstructured.Unstructured) string {
	return objread.New(app.Object).Str("spec", "destination", "namespace")
}

// seedLogs creates the demo's pods (and the hook's Job and the Secret) in
// the clientset and returns their scripts.
func (e *estate) seedLogs(ctx context.Context, kc kubernetes.Interface, every time.Duration) (*demoLogs, error) {
	d := &demoLogs{every: every, byKey: map[string]podLog{}}
	created := metav1.NewTime(e.now.Add(-25 * time.Minute))
	pod := func(ns, name string, labels map[string]string, containers ...string) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels, CreationTimestamp: created},
			Spec: corev1.PodSpec{NodeName: "demo-node-1"}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
		for _, c := range containers {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: c, Image: "registry.acme.internal/" + c})
		}
		return p
	}
	var pods []*corev1.Pod
	for _, s := range e.objects[pulumiop.Stacks] {
		st := objread.New(s.Object)
		p := pod(s.GetNamespace(), s.GetName()+"-workspace-0", map[string]string{
			"auto.pulumi.com/component": "workspace", "auto.pulumi.com/workspace-name": s.GetName(),
		}, "pulumi")
		p.Spec.InitContainers = []corev1.Container{{Name: "bootstrap", Image: "pulumi/pulumi-kubernetes-operator"}}
		pods = append(pods, p)
		key := p.Namespace + "/" + p.Name + "/"
		d.byKey[key+"bootstrap"] = podLog{history: []string{"copying the agent to /share/agent", "done"}}
		d.byKey[key+"pulumi"] = workspaceLog(st.Str("spec", "stack"), st.Str("status", "currentUpdate", "name") != "" && s.GetName() == stackRunning)
	}
	var destNS string
	for _, app := range e.objects[argocd.Applications] {
		if app.GetName() == appStuck {
			destNS = destNamespace(app)
		}
	}
	secretEnv := []corev1.EnvVar{{Name: "ELASTIC_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: indexerSecret}, Key: "password"}}}}
	indexer := pod(destNS, indexerPod, map[string]string{"app.kubernetes.io/name": appStuck}, "elasticsearch")
	indexer.Spec.Containers[0].Env = secretEnv
	indexer.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "elasticsearch", RestartCount: 7,
		LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "OOMKilled", ExitCode: 137}}}}
	d.byKey[destNS+"/"+indexerPod+"/elasticsearch"] = indexerLog()
	hook := pod(destNS, hookPod, map[string]string{"batch.kubernetes.io/job-name": hookJob, "job-name": hookJob}, "reindex")
	hook.Spec.Containers[0].Env = secretEnv
	d.byKey[destNS+"/"+hookPod+"/reindex"] = hookLog()
	pods = append(pods, indexer, hook)

	_, err := kc.CoreV1().Secrets(destNS).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: destNS, Name: indexerSecret},
		Data:       map[string][]byte{"password": []byte(demoESPassword)},
	}, metav1.CreateOptions{})
	if err != nil {
		return nil, err
	}
	_, err = kc.BatchV1().Jobs(destNS).Create(ctx, &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: destNS, Name: hookJob, CreationTimestamp: created,
			Annotations: map[string]string{"argocd.argoproj.io/hook": "Sync"}},
	}, metav1.CreateOptions{})
	if err != nil {
		return nil, err
	}
	for _, p := range pods {
		if _, err := kc.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			return nil, fmt.Errorf("demo pod %s/%s: %w", p.Namespace, p.Name, err)
		}
	}
	return d, nil
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
	return fmt.Sprintf("shard 3/12: waiting for %s:9200 (attempt %d): dial tcp 10.42.3.17:9200: connect: connection refused", indexerPod, attempt)
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
		previous: append(append([]string(nil), start...), "java.lang.OutOfMemoryError: Java heap space", "fatal error in thread [elasticsearch[search-indexer-0][write][T#3]], exiting"),
		live: func(i int) (string, bool) {
			return fmt.Sprintf("[o.e.m.j.JvmGcMonitorService] [gc][%d] overhead, spent [4.%ds] collecting in the last [4.4s]", 42+i, i%4), true
		},
	}
}
