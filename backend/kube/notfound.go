package kube

import (
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// ObjectMissing tells a 404 for an object that does not exist (its
// resource is served, the answer names it) from one for a version the
// cluster does not serve (the answer names no object): a reader that tries
// a kind's versions newest first stops at the first, goes on at the second.
func ObjectMissing(err error) bool {
	var st apierrors.APIStatus
	return apierrors.IsNotFound(err) && errors.As(err, &st) && st.Status().Details != nil && st.Status().Details.Name != ""
}
