package testcluster

import (
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
	kc := clientcmdapi.NewConfig()
	kc.Clusters[context] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos[context] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData, Token: cfg.BearerToken}
	kc.Contexts[context] = &clientcmdapi.Context{Cluster: context, AuthInfo: context}
	kc.CurrentContext = context
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
