package doctor

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
)

// An operator 2.x running where its Workspace and Update resources are not
// served cannot run a program: doctor says which are missing.
func TestAnOperatorWithoutItsCRDsIsAFinding(t *testing.T) {
	kc := fake.NewClientset(&appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "pko", Name: "controller-manager", Labels: map[string]string{"app.kubernetes.io/name": "pulumi-kubernetes-operator"}},
		Spec:       appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Image: "docker.io/pulumi/pulumi-kubernetes-operator:v2.1.0"}}}}},
		Status:     appsv1.DeploymentStatus{ReadyReplicas: 1},
	})
	kc.Resources = []*metav1.APIResourceList{{GroupVersion: "pulumi.com/v1", APIResources: []metav1.APIResource{{Name: "stacks"}}}}
	units := []*model.Unit{{Key: model.Key{Context: "prod", Engine: model.EnginePulumi, Namespace: "infra", Name: "net"}}}
	fs, unchecked := CheckPulumiOperator(context.Background(), units, func(string) (*kube.Cluster, bool) { return &kube.Cluster{Context: "prod", Kube: kc}, true })
	if len(fs) != 1 || fs[0].State != "operator CRDs missing" || !strings.Contains(fs[0].Cause, "2.x runs, but workspaces.auto.pulumi.com and updates.auto.pulumi.com not served") || len(unchecked) > 0 {
		t.Fatalf("findings %+v, unchecked %v", fs, unchecked)
	}
}
