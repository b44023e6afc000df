package testcluster

import (
	"context"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A package's further control plane is another apiserver with its own
// objects, and the same one on every call by that name.
func TestClusterSharedAsIsAnotherControlPlaneKeptForThePackage(t *testing.T) {
	main, other := Shared(t), SharedAs(t, "second", Options{NoCRDs: true})
	if other == main || other.Config().Host == main.Config().Host {
		t.Fatalf("SharedAs returned the package's main control plane (%s)", main.Config().Host)
	}
	if again := SharedAs(t, "second", Options{NoCRDs: true}); again != other {
		t.Fatal("a second call by the same name started another control plane")
	}
	ns := other.Namespace(t)
	_, err := main.Kube(t).CoreV1().Namespaces().Get(context.Background(), ns, metav1.GetOptions{})
	if !apierrors.IsNotFound(err) {
		t.Fatalf("namespace %s made on the second control plane: on the main one %v", ns, err)
	}
}
