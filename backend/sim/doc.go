// Package sim holds small controllers that play the other side of driftdeck's
// protocols: an Argo CD application controller and a Pulumi Kubernetes
// Operator (v2), reduced to the rules driftdeck depends on (DESIGN.md section
// 3, checked against the upstream sources). They work only through the
// Kubernetes API (a dynamic client, plus a clientset for Events), so the same
// code drives the embedded demo control plane and the tests against a real
// kube-apiserver. Like the real controllers they write with JSON merge patches
// of the fields they own, never with full updates, so concurrent writers keep
// their writes; timings are configurable (seconds in the demo, milliseconds in
// tests).
package sim
