// Package localrender renders a GitOps source locally, the way the
// reconciler would, in the driftdeck-render helper: a checkout of the
// repository at a revision (through a clone cache), then an Argo CD
// directory or kustomization source, or a Flux Kustomization's build. git
// and kustomize stay out of driftdeck's own memory (ADR 0012); the dry runs
// against the cluster and the diff stay in driftdeck.
//
// This package holds the protocol and the client and links neither;
// localrender/engine holds the render and the helper's main.
package localrender
