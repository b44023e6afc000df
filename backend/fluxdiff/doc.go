// Package fluxdiff answers "what would the next reconcile of this Flux
// Kustomization change?" the way `flux diff kustomization` does: it builds
// the kustomization as kustomize-controller would and compares each object's
// live state with a server-side dry-run apply of it under the controller's
// field manager; objects of the inventory the build no longer has are shown
// as removed when the Kustomization prunes.
//
// The build is made from a local checkout of the GitRepository's URL at the
// revision the controller last attempted (the source's artifact revision
// when none yet), not from source-controller's artifact, which is rarely
// reachable from outside the cluster. Only GitRepository sources are built;
// the checkout and the build run in the driftdeck-render helper
// (backend/localrender).
package fluxdiff
