// Package testflux runs Flux's real source-controller and kustomize-controller
// against a test control plane (testcluster), so tests can assert what Flux
// itself does with driftdeck's writes. Both are built from the Go module
// proxy by testdata/tools/build.sh, cached by version, with the CRDs of the
// same modules beside them. A GitRepository accepts only http(s) and ssh
// URLs: ServeGit serves a local repository over HTTP through git's own
// http-backend.
package testflux
