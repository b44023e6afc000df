// Package restree builds an Argo CD Application's live resource tree: the
// resources its status.resources names, and the live objects they own on the
// destination cluster (Deployments -> ReplicaSets -> Pods, Jobs -> Pods, and
// the other workload kinds), each with its sync state and its health computed
// as Argo CD computes it, plus the hooks of the current operation with their
// Jobs. Reading is bounded (a few LISTs per namespace, each limited), and the
// builder follows ownerReferences without looping on cycles.
package restree
