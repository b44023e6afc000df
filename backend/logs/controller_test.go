package logs

import (
	"context"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
)

func controllerPodIn(ns, name, labelKey string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{labelKey: "helm-controller"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "manager"}}}}
}

// An identity that may list pods only in flux-system still finds the
// controller there; one that finds none is told where driftdeck looked.
func TestAFluxUnitsLogIsFoundWhereTheControllerRuns(t *testing.T) {
	hr := model.Key{Context: "prod", Engine: model.EngineHelmRelease, Namespace: "team-a", Name: "api"}
	forbidAllNamespaces := func(kc *fake.Clientset) {
		kc.PrependReactor("list", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
			if a.GetNamespace() == "" {
				return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("cluster-wide list denied"))
			}
			return false, nil, nil
		})
	}

	t.Run("in flux-system when the pods of every namespace may not be listed", func(t *testing.T) {
		kc := fake.NewClientset(controllerPodIn("flux-system", "helm-controller-1", "app.kubernetes.io/component"))
		forbidAllNamespaces(kc)
		got, err := controllerTargets(context.Background(), &kube.Cluster{Context: "prod", Kube: kc}, hr)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Pod.Name != "helm-controller-1" || got[0].Container != "manager" || *got[0].About != (About{"HelmRelease", "team-a", "api"}) {
			t.Errorf("targets %+v", got)
		}
	})

	t.Run("in another namespace when every namespace may be listed", func(t *testing.T) {
		kc := fake.NewClientset(controllerPodIn("gitops", "helm-controller-2", "app"))
		got, err := controllerTargets(context.Background(), &kube.Cluster{Context: "prod", Kube: kc}, hr)
		if err != nil || len(got) != 1 || got[0].Pod.Namespace != "gitops" {
			t.Fatalf("targets %+v, %v", got, err)
		}
	})

	t.Run("none: the error names the label and the namespace", func(t *testing.T) {
		kc := fake.NewClientset()
		forbidAllNamespaces(kc)
		_, err := controllerTargets(context.Background(), &kube.Cluster{Context: "prod", Kube: kc}, hr)
		if !errors.Is(err, ErrNoPod) || !strings.Contains(err.Error(), "app=helm-controller") || !strings.Contains(err.Error(), "flux-system") {
			t.Errorf("err %v", err)
		}
	})
}
