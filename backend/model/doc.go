// Package model is driftdeck's unified view of a GitOps reconciler: one Unit per
// Argo CD Application, Pulumi Stack, Flux Kustomization/HelmRelease or tofu
// Terraform object, whatever the engine. It is pure data and pure functions.
package model
