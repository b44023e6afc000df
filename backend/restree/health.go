package restree

import (
	"fmt"
	"strings"

	"github.com/driftdeck/driftdeck/backend/objread"
)

// Health is a resource's health in Argo CD's words.
type Health string

const (
	Healthy     Health = "Healthy"
	Progressing Health = "Progressing"
	Degraded    Health = "Degraded"
	Suspended   Health = "Suspended"
	Missing     Health = "Missing"
	Unknown     Health = "Unknown"
)

// rank orders health from worst to best, for summaries and sorting.
func (h Health) rank() int {
	switch h {
	case Degraded:
		return 0
	case Missing:
		return 1
	case Progressing:
		return 2
	case Unknown:
		return 3
	case Suspended:
		return 4
	case Healthy:
		return 5
	}
	return 6
}

// Unhealthy is what the tree flags: a reason is shown for it.
func (h Health) Unhealthy() bool { return h == Degraded || h == Missing || h == Progressing }

// HealthOf computes a live object's health by the rules Argo CD's
// gitops-engine applies to the built-in workload kinds (pkg/health), with the
// message it would give. ok is false for kinds it has no rule for.
func HealthOf(obj map[string]any) (h Health, reason string, ok bool) {
	r := objread.New(obj)
	group, _, _ := strings.Cut(r.Str("apiVersion"), "/")
	if !strings.Contains(r.Str("apiVersion"), "/") {
		group = ""
	}
	rule, ok := healthRules[group+"/"+r.Str("kind")]
	if !ok {
		return "", "", false
	}
	h, reason = rule(r)
	return h, reason, true
}

// healthRules are the rules by group/kind ("" group for the core kinds).
var healthRules = map[string]func(*objread.Reader) (Health, string){
	"apps/Deployment":           deploymentHealth,
	"apps/ReplicaSet":           replicaSetHealth,
	"apps/StatefulSet":          statefulSetHealth,
	"apps/DaemonSet":            daemonSetHealth,
	"batch/Job":                 jobHealth,
	"/Pod":                      podHealth,
	"/Service":                  serviceHealth,
	"networking.k8s.io/Ingress": ingressHealth,
	"extensions/Ingress":        ingressHealth,
	"kustomize.toolkit.fluxcd.io/Kustomization": fluxHealth,
	"helm.toolkit.fluxcd.io/HelmRelease":        fluxHealth,
	"source.toolkit.fluxcd.io/GitRepository":    fluxHealth,
	"source.toolkit.fluxcd.io/HelmRepository":   fluxHealth,
}

// generationObserved: the controller has seen the latest spec.
func generationObserved(r *objread.Reader) bool {
	return r.Int("metadata", "generation") <= r.Int("status", "observedGeneration")
}

func condition(r *objread.Reader, typ string) *objread.Reader {
	for _, c := range r.Objects("status", "conditions") {
		if c.Str("type") == typ {
			return c
		}
	}
	return nil
}

func deploymentHealth(r *objread.Reader) (Health, string) {
	if paused, _ := r.Bool("spec", "paused"); paused {
		return Suspended, "Deployment is paused"
	}
	if !generationObserved(r) {
		return Progressing, "Waiting for rollout to finish: observed deployment generation less than desired generation"
	}
	st := r.At("status")
	updated, total, available := st.Int("updatedReplicas"), st.Int("replicas"), st.Int("availableReplicas")
	if c := condition(r, "Progressing"); c != nil && c.Str("reason") == "ProgressDeadlineExceeded" {
		return Degraded, fmt.Sprintf("Deployment %q exceeded its progress deadline", r.Str("metadata", "name"))
	}
	if want, set := specReplicas(r); set && updated < want {
		return Progressing, fmt.Sprintf("Waiting for rollout to finish: %d out of %d new replicas have been updated...", updated, want)
	}
	if total > updated {
		return Progressing, fmt.Sprintf("Waiting for rollout to finish: %d old replicas are pending termination...", total-updated)
	}
	if available < updated {
		return Progressing, fmt.Sprintf("Waiting for rollout to finish: %d of %d updated replicas are available...", available, updated)
	}
	return Healthy, ""
}

// specReplicas reads spec.replicas; set is false when it is absent.
func specReplicas(r *objread.Reader) (n int64, set bool) {
	return r.Int("spec", "replicas"), r.Has("spec", "replicas")
}

func replicaSetHealth(r *objread.Reader) (Health, string) {
	if !generationObserved(r) {
		return Progressing, "Waiting for rollout to finish: observed replica set generation less than desired generation"
	}
	if c := condition(r, "ReplicaFailure"); c != nil && c.Str("status") == "True" {
		return Degraded, c.Str("message")
	}
	available := r.Int("status", "availableReplicas")
	if want, set := specReplicas(r); set && available < want {
		return Progressing, fmt.Sprintf("Waiting for rollout to finish: %d out of %d new replicas are available...", available, want)
	}
	return Healthy, ""
}

func statefulSetHealth(r *objread.Reader) (Health, string) {
	st := r.At("status")
	if observed := st.Int("observedGeneration"); observed == 0 || r.Int("metadata", "generation") > observed {
		return Progressing, "Waiting for statefulset spec update to be observed..."
	}
	want, set := specReplicas(r)
	if ready := st.Int("readyReplicas"); set && ready < want {
		return Progressing, fmt.Sprintf("Waiting for %d pods to be ready...", want-ready)
	}
	updated := st.Int("updatedReplicas")
	switch r.Str("spec", "updateStrategy", "type") {
	case "OnDelete":
		return Healthy, fmt.Sprintf("statefulset has %d ready pods", st.Int("readyReplicas"))
	case "RollingUpdate", "":
		ru := r.At("spec", "updateStrategy", "rollingUpdate")
		if r.Has("spec", "updateStrategy", "rollingUpdate") {
			if part := ru.Int("partition"); set && ru.Has("partition") && updated < want-part {
				return Progressing, fmt.Sprintf("Waiting for partitioned roll out to finish: %d out of %d new pods have been updated...", updated, want-part)
			}
			return Healthy, fmt.Sprintf("partitioned roll out complete: %d new pods have been updated...", updated)
		}
	}
	if st.Str("updateRevision") != st.Str("currentRevision") {
		return Progressing, fmt.Sprintf("waiting for statefulset rolling update to complete %d pods at revision %s...", updated, st.Str("updateRevision"))
	}
	return Healthy, fmt.Sprintf("statefulset rolling update complete %d pods at revision %s...", st.Int("currentReplicas"), st.Str("currentRevision"))
}

func daemonSetHealth(r *objread.Reader) (Health, string) {
	st := r.At("status")
	if observed := st.Int("observedGeneration"); observed == 0 || r.Int("metadata", "generation") > observed {
		return Progressing, "Waiting for rollout to finish: observed daemon set generation less than desired generation"
	}
	if r.Str("spec", "updateStrategy", "type") == "OnDelete" {
		return Healthy, fmt.Sprintf("daemon set %d out of %d new pods have been updated", st.Int("updatedNumberScheduled"), st.Int("desiredNumberScheduled"))
	}
	desired, updated, available := st.Int("desiredNumberScheduled"), st.Int("updatedNumberScheduled"), st.Int("numberAvailable")
	name := r.Str("metadata", "name")
	if updated < desired {
		return Progressing, fmt.Sprintf("Waiting for daemon set %q rollout to finish: %d out of %d new pods have been updated...", name, updated, desired)
	}
	if available < desired {
		return Progressing, fmt.Sprintf("Waiting for daemon set %q rollout to finish: %d of %d updated pods are available...", name, available, desired)
	}
	return Healthy, ""
}

func jobHealth(r *objread.Reader) (Health, string) {
	var failed, complete, suspended bool
	var failMsg, msg string
	for _, c := range r.Objects("status", "conditions") {
		if c.Str("status") != "True" {
			continue
		}
		switch c.Str("type") {
		case "Failed":
			failed, complete, failMsg = true, true, c.Str("message")
		case "Complete":
			complete, msg = true, c.Str("message")
		case "Suspended":
			suspended, msg = true, c.Str("message")
		}
	}
	switch {
	case failed:
		return Degraded, failMsg
	case complete:
		return Healthy, msg
	case suspended:
		return Suspended, msg
	}
	return Progressing, msg
}

// podHealth: a long-running pod (restartPolicy Always) is Degraded as soon
// as a container waits on an error or a back-off; pods that run to an end
// (hooks, Job pods) are Progressing until they end, so that an image pull
// that recovers does not fail a hook early (gitops-engine's reasoning).
func podHealth(r *objread.Reader) (Health, string) {
	always := r.Str("spec", "restartPolicy") == "Always" || !r.Has("spec", "restartPolicy")
	msg := r.Str("status", "message")
	containers := r.Objects("status", "containerStatuses")
	if always {
		var why []string
		for _, c := range containers {
			w := c.At("state", "waiting")
			reason := w.Str("reason")
			if strings.HasPrefix(reason, "Err") || strings.HasSuffix(reason, "Error") || strings.HasSuffix(reason, "BackOff") {
				why = append(why, waitingText(c.Str("name"), reason, w.Str("message")))
			}
		}
		if len(why) > 0 {
			return Degraded, strings.Join(why, ", ")
		}
	}
	switch r.Str("status", "phase") {
	case "Pending":
		// Argo CD shows status.message, which an unschedulable Pod lacks:
		// the scheduler says why in its PodScheduled condition.
		if c := condition(r, "PodScheduled"); msg == "" && c != nil && c.Str("status") == "False" {
			return Progressing, orText(c.Str("message"), c.Str("reason"))
		}
		return Progressing, msg
	case "Succeeded":
		return Healthy, msg
	case "Failed":
		if msg != "" {
			return Degraded, msg
		}
		for _, c := range append(r.Objects("status", "initContainerStatuses"), containers...) {
			if m := terminatedText(c); m != "" {
				return Degraded, m
			}
		}
		return Degraded, ""
	case "Running":
		if !always {
			return Progressing, msg
		}
		if c := condition(r, "Ready"); c != nil && c.Str("status") == "True" {
			return Healthy, msg
		}
		for _, c := range containers {
			if c.Has("lastState", "terminated") {
				return Degraded, orText(msg, fmt.Sprintf("container %q is not ready and has restarted (last exit: %s)", c.Str("name"), lastExit(c)))
			}
		}
		return Progressing, msg
	}
	return Unknown, msg
}

// waitingText says why a container waits; Argo CD shows only the message,
// which is empty for some reasons, so the reason leads.
func waitingText(name, reason, message string) string {
	s := fmt.Sprintf("container %q: %s", name, reason)
	if message != "" {
		s += ": " + message
	}
	return s
}

func terminatedText(c *objread.Reader) string {
	t := c.At("state", "terminated")
	switch {
	case t.Str("message") != "":
		return t.Str("message")
	case t.Str("reason") == "OOMKilled":
		return "OOMKilled"
	case t.Int("exitCode") != 0:
		return fmt.Sprintf("container %q failed with exit code %d", c.Str("name"), t.Int("exitCode"))
	}
	return ""
}

func lastExit(c *objread.Reader) string {
	t := c.At("lastState", "terminated")
	return orText(t.Str("reason"), fmt.Sprintf("exit code %d", t.Int("exitCode")))
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func serviceHealth(r *objread.Reader) (Health, string) {
	if r.Str("spec", "type") != "LoadBalancer" {
		return Healthy, ""
	}
	if len(r.Slice("status", "loadBalancer", "ingress")) > 0 {
		return Healthy, ""
	}
	return Progressing, "waiting for the load balancer's address"
}

func ingressHealth(r *objread.Reader) (Health, string) {
	if len(r.Slice("status", "loadBalancer", "ingress")) > 0 {
		return Healthy, ""
	}
	return Progressing, "waiting for the ingress controller to publish an address"
}

func itoa(n int) string { return fmt.Sprint(n) }
