package kube

import (
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestAMissingObjectIsToldFromAnUnservedVersion(t *testing.T) {
	gr := schema.GroupResource{Group: "kustomize.toolkit.fluxcd.io", Resource: "kustomizations"}
	if !ObjectMissing(apierrors.NewNotFound(gr, "apps")) {
		t.Error("a 404 naming the object is a missing object")
	}
	if ObjectMissing(apierrors.NewNotFound(gr, "")) || ObjectMissing(errors.New("connection refused")) || ObjectMissing(apierrors.NewForbidden(gr, "apps", errors.New("no"))) {
		t.Error("an unserved version, a transport error or a refusal is not a missing object")
	}
}
