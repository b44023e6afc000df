package rootmod

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/driftdeck/driftdeck/backend/config"
	"github.com/driftdeck/driftdeck/backend/model"
)

// The kubernetes backend keeps the state of workspace W in the Secret
// tfstate-W-<secret_suffix> and its lock in the Lease
// lock-tfstate-W-<secret_suffix>: the holder identity is the lock's id,
// the annotation its info. A killed run leaves both behind.
const kubeLockInfoAnnotation = "app.terraform.io/lock-info"

// kubeBackend is where a kubernetes backend keeps r's state.
type kubeBackend struct {
	client           kubernetes.Interface
	meta             metadata.Interface
	namespace        string
	secret, leaseFor string
}

func openKubeBackend(r Root, be backendInfo) (*kubeBackend, error) {
	cfg, err := kubeBackendConfig(be)
	if err != nil {
		return nil, err
	}
	cfg.Timeout = 15 * time.Second
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	mc, err := metadata.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	secret := "tfstate-" + r.Workspace + "-" + be.setting("secret_suffix", "", "")
	return &kubeBackend{client: kc, meta: mc, namespace: be.setting("namespace", "KUBE_NAMESPACE", "default"), secret: secret, leaseFor: "lock-" + secret}, nil
}

// kubeBackendConfig reaches the cluster the backend does, through a
// kubeconfig (config_path or config_paths, and config_context) or from
// inside a pod; a backend given its host and credentials inline is not
// read.
func kubeBackendConfig(be backendInfo) (*rest.Config, error) {
	if v, _ := be.Config["in_cluster_config"].(bool); v {
		return rest.InClusterConfig()
	}
	if be.setting("host", "KUBE_HOST", "") != "" {
		return nil, errors.New("the kubernetes backend is given its host inline: driftdeck reads its lock through a kubeconfig only")
	}
	rules := &clientcmd.ClientConfigLoadingRules{}
	if p := be.setting("config_path", "KUBE_CONFIG_PATH", ""); p != "" {
		rules.ExplicitPath = config.ExpandHome(p)
	} else if ps, ok := be.Config["config_paths"].([]any); ok && len(ps) > 0 {
		for _, p := range ps {
			if s, ok := p.(string); ok {
				rules.Precedence = append(rules.Precedence, config.ExpandHome(s))
			}
		}
	} else {
		return nil, errors.New("the kubernetes backend names no config_path (nor KUBE_CONFIG_PATH): driftdeck reads its lock through that kubeconfig")
	}
	overrides := &clientcmd.ConfigOverrides{CurrentContext: be.setting("config_context", "KUBE_CTX", "")}
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides).ClientConfig()
}

func readKubernetesLock(ctx context.Context, r Root, be backendInfo) (*model.RootLock, error) {
	kb, err := openKubeBackend(r, be)
	if err != nil {
		return nil, err
	}
	lease, err := kb.client.CoordinationV1().Leases(kb.namespace).Get(ctx, kb.leaseFor, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the lock Lease %s/%s: %w", kb.namespace, kb.leaseFor, err)
	}
	if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
		return nil, nil
	}
	l := &model.RootLock{ID: *lease.Spec.HolderIdentity}
	if info, ok := lease.Annotations[kubeLockInfoAnnotation]; ok {
		if l, err = parseLockInfo([]byte(info)); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// kubeStateWritten is the state Secret's resourceVersion and when it was
// last written, read from its metadata alone: the state itself may hold
// secrets.
func kubeStateWritten(ctx context.Context, r Root, be backendInfo) (string, time.Time, error) {
	kb, err := openKubeBackend(r, be)
	if err != nil {
		return "", time.Time{}, err
	}
	s, err := kb.meta.Resource(corev1.SchemeGroupVersion.WithResource("secrets")).Namespace(kb.namespace).Get(ctx, kb.secret, metav1.GetOptions{})
	if err != nil {
		return "", time.Time{}, err
	}
	at := s.CreationTimestamp.Time
	for _, mf := range s.ManagedFields {
		if mf.Time != nil && mf.Time.After(at) {
			at = mf.Time.Time
		}
	}
	return s.ResourceVersion, at, nil
}
