// Package testcluster runs tests against a real kube-apiserver and etcd
// (driven by controller-runtime's envtest), with CRDs installed: the project's
// own (testdata/crds) or the upstream releases found in ../shared/crds.
//
// A package shares one control plane, started by its first test that needs it
// (starting costs a few seconds):
//
//	func TestMain(m *testing.M) { testcluster.Main(m, testcluster.Options{}) }
//
//	func TestClusterPauseSelfHeal(t *testing.T) {
//		c := testcluster.Shared(t)
//		dyn := dynamic.NewForConfigOrDie(c.Config())
//		...
//	}
//
// Start gives a test its own control plane instead. Every test that uses a
// real cluster is named TestCluster...: CI counts those to prove they ran.
//
// The binaries come from KUBEBUILDER_ASSETS, or else from the cache that
// testdata/tools/build.sh fills (make test builds it). When they are not built
// the tests skip, saying so, unless DRIFTDECK_REQUIRE_CLUSTER=1.
package testcluster
