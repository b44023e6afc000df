package testcluster

import (
	"net"
	"path/filepath"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// WriteKubeconfig writes a kubeconfig file for cfg with one context named
// context, the way a user's kubeconfig would name the cluster: for the
// binaries a test runs (driftdeck itself, the real controllers).
func WriteKubeconfig(cfg *rest.Config, context, path string) error {
	return WriteKubeconfigContexts(path, context, map[string]*rest.Config{context: cfg})
}

// WriteKubeconfigContexts writes a kubeconfig file with a context (and its
// cluster and user, of the same name) for each of contexts, current the
// current one: a session across several clusters.
func WriteKubeconfigContexts(path, current string, contexts map[string]*rest.Config) error {
	kc := clientcmdapi.NewConfig()
	for name, cfg := range contexts {
		kc.Clusters[name] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
		kc.AuthInfos[name] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData, Token: cfg.BearerToken}
		kc.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	}
	kc.CurrentContext = current
	return clientcmd.WriteToFile(*kc, path)
}

// Kubeconfig writes cfg's kubeconfig into the test's temporary directory and
// returns its path.
func Kubeconfig(t testing.TB, cfg *rest.Config, context string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := WriteKubeconfig(cfg, context, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// RefusedURL is the https URL of a local address nothing listens on: every
// connection to it is refused, as to a cluster that is down.
func RefusedURL(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "https://" + addr
}

// KubeconfigIn is Kubeconfig with the context's namespace set, as `kubectl
// config set-context --namespace` leaves it.
func KubeconfigIn(t testing.TB, cfg *rest.Config, context, namespace string) string {
	t.Helper()
	path := Kubeconfig(t, cfg, context)
	kc, err := clientcmd.LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	kc.Contexts[context].Namespace = namespace
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}
