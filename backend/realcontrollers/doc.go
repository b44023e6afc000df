// Package realcontrollers holds only tests: driftdeck's actions run against
// the real upstream controllers (Argo CD's application controller with its
// repo-server and redis, see testargocd) on the real test control plane, and
// assert what the controller then does, not only what driftdeck wrote.
package realcontrollers
