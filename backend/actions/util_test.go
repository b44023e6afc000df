package actions

import (
	"context"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/driftdeck/driftdeck/backend/argocd"
)

func itoa(n int) string { return strconv.Itoa(n) }

func ownerRefs(appset string) []metav1.OwnerReference {
	yes := true
	return []metav1.OwnerReference{{APIVersion: "argoproj.io/v1alpha1", Kind: "ApplicationSet", Name: appset,
		UID: types.UID("7c1f0b6e-0000-4000-8000-000000000001"), Controller: &yes}}
}

// revertPolicy plays an ApplicationSet controller: whenever the app's policy
// is not what it generates, it writes it back, as the real one does.
func revertPolicy(ctx context.Context, e *env, name, patch string) {
	for ctx.Err() == nil {
		o, err := e.dyn.Resource(argocd.Applications).Namespace(e.ns).Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			if u := argocd.Convert("", o.Object); !u.Argo.AutoSync || u.Argo.AutomatedSet == false {
				_, _ = e.dyn.Resource(argocd.Applications).Namespace(e.ns).Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
}
