// Package testargocd runs the real Argo CD application controller, its
// repo-server and redis against a test control plane (testcluster), so tests
// can assert what Argo CD itself does with driftdeck's writes; on demand
// (StartServer) the API server too, whose admin account `argocd login` uses.
// The argocd multi-call binary is built from the Go module proxy by
// testdata/tools/build.sh and cached by version; redis-server is Debian's.
// Sources are local git repositories (file://), as in Argo CD's own e2e tests.
package testargocd
