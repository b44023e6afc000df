// Package kube is driftdeck's access to Kubernetes clusters: connections per
// kubeconfig context, discovery of the GitOps resources present, watches that
// feed the store, and identity and permission probes.
package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Cluster is one kubeconfig context, connected.
type Cluster struct {
	Context string
	Config  *rest.Config
	Dynamic dynamic.Interface
	Kube    kubernetes.Interface
	// REST makes raw requests (watches decoded in one pass); nil for the
	// demo's in-process clients, which are watched through Dynamic.
	REST      rest.Interface
	Namespace string // the context's default namespace
	Access    *Access
	// PodLogs opens a container's log; nil reads pods/log through the API
	// server (OpenLog). The demo's in-process control plane, which has no
	// kubelet, serves its own.
	PodLogs func(ctx context.Context, namespace, pod string, opts *corev1.PodLogOptions) (io.ReadCloser, error)
	// served holds the resources present (filled by Discover, read by Has).
	// Atomic: a Cluster may be shared by fleets, and one's rediscovery must
	// not race another's watches asking what is served.
	served atomic.Pointer[map[schema.GroupVersionResource]bool]
}

// OpenLog opens a container's log, as kubectl logs reads it.
func (c *Cluster) OpenLog(ctx context.Context, namespace, pod string, opts *corev1.PodLogOptions) (io.ReadCloser, error) {
	if c.PodLogs != nil {
		return c.PodLogs(ctx, namespace, pod, opts)
	}
	return c.Kube.CoreV1().Pods(namespace).GetLogs(pod, opts).Stream(ctx)
}

// ErrNoKubeconfig means no kubeconfig could be found at all.
var ErrNoKubeconfig = errors.New("no kubeconfig found")

// ContextNames resolves the contexts to use: the comma-separated --context
// value, or the current context.
func ContextNames(flags *Flags) ([]string, error) {
	raw, err := flags.loader().RawConfig()
	if err != nil {
		return nil, fmt.Errorf("reading kubeconfig: %w", err)
	}
	if len(raw.Contexts) == 0 && flags.APIServer == "" {
		return nil, ErrNoKubeconfig
	}
	var names []string
	if flags.Context != "" {
		for _, n := range strings.Split(flags.Context, ",") {
			n = strings.TrimSpace(n)
			if n == "" {
				continue
			}
			if _, ok := raw.Contexts[n]; !ok {
				return nil, fmt.Errorf("context %q not found in kubeconfig (have: %s)", n, strings.Join(sortedKeys(raw.Contexts), ", "))
			}
			names = append(names, n)
		}
		return names, nil
	}
	return []string{raw.CurrentContext}, nil
}

// Connect builds the clients of one context, with the command line's overrides
// (--as, --request-timeout, ...). QPS and burst are raised: driftdeck starts a
// handful of watches at once and must not queue behind client-side throttling.
func Connect(flags *Flags, context string) (*Cluster, error) {
	f := *flags
	f.Context = context
	loader := f.loader()
	cfg, err := loader.ClientConfig()
	if err != nil {
		if clientcmd.IsEmptyConfig(err) {
			return nil, ErrNoKubeconfig
		}
		return nil, fmt.Errorf("context %q: %w", context, err)
	}
	ns, _, err := loader.Namespace()
	if err != nil {
		ns = "default"
	}
	return NewCluster(context, cfg, ns)
}

// NewCluster builds the clients for a rest.Config.
func NewCluster(context string, cfg *rest.Config, namespace string) (*Cluster, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = 50, 100
	cfg.UserAgent = "driftdeck"
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("context %q: %w", context, err)
	}
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("context %q: %w", context, err)
	}
	c := NewClusterFromClients(context, cfg, dyn, kc, namespace)
	c.REST = kc.Discovery().RESTClient()
	return c, nil
}

// NewClusterFromClients wraps existing clients (the demo's in-process ones).
func NewClusterFromClients(context string, cfg *rest.Config, dyn dynamic.Interface, kc kubernetes.Interface, namespace string) *Cluster {
	c := &Cluster{Context: context, Config: cfg, Dynamic: dyn, Kube: kc, Namespace: namespace}
	c.Access = newAccess(kc)
	return c
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sortStrings(out)
	return out
}
