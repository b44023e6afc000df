package demo

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/driftdeck/driftdeck/backend/pulumiop"
)

// seedStackSecrets stores the Secrets the Stacks name (a passphrase where
// the state is self-managed, the Pulumi Cloud token elsewhere), each with
// the keys they read, as a cluster running them has: doctor checks them.
func (e *estate) seedStackSecrets(ctx context.Context, kc kubernetes.Interface) error {
	type name struct{ namespace, name string }
	keys := map[name]map[string][]byte{}
	for _, s := range e.objects[pulumiop.Stacks] {
		for _, ref := range pulumiop.Convert(ContextName, s.Object).Stack.SecretRefs {
			n := name{ref.Namespace, ref.Name}
			if keys[n] == nil {
				keys[n] = map[string][]byte{}
			}
			keys[n][ref.Key] = []byte("demo-" + ref.Key)
		}
	}
	for n, data := range keys {
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: n.namespace, Name: n.name}, Data: data}
		if _, err := kc.CoreV1().Secrets(n.namespace).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
			return err
		}
	}
	return nil
}
