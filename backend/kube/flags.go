package kube

import (
	"os"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/client-go/tools/clientcmd"
)

// Flags are kubectl's connection flags, with kubectl's names and meanings.
// They are declared here rather than taken from k8s.io/cli-runtime, whose
// flags package links kustomize and the resource builder into driftdeck for
// nothing but these (ADR 0012).
type Flags struct {
	KubeConfig, Context, ClusterName, AuthInfoName, Namespace string
	APIServer, TLSServerName, CAFile                          string
	Insecure, DisableCompression                              bool
	ProxyURL                                                  string
	CertFile, KeyFile, BearerToken, Username, Password        string
	Impersonate, ImpersonateUID                               string
	ImpersonateGroup, ImpersonateUserExtra                    []string
	// Timeout is --request-timeout as written ("0": none).
	Timeout string
	// CacheDir is accepted for kubectl's sake; driftdeck keeps no
	// discovery cache on disk.
	CacheDir string
}

// NewFlags returns the flags with kubectl's defaults.
func NewFlags() *Flags { return &Flags{Timeout: "0"} }

// AddFlags registers the flags as kubectl does.
func (f *Flags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.KubeConfig, "kubeconfig", f.KubeConfig, "Path to the kubeconfig file to use for CLI requests.")
	fs.StringVar(&f.CacheDir, "cache-dir", f.CacheDir, "Default cache directory")
	fs.StringVar(&f.CertFile, "client-certificate", f.CertFile, "Path to a client certificate file for TLS")
	fs.StringVar(&f.KeyFile, "client-key", f.KeyFile, "Path to a client key file for TLS")
	fs.StringVar(&f.BearerToken, "token", f.BearerToken, "Bearer token for authentication to the API server")
	fs.StringVar(&f.Impersonate, "as", f.Impersonate, "Username to impersonate for the operation. User could be a regular user or a service account in a namespace.")
	fs.StringVar(&f.ImpersonateUID, "as-uid", f.ImpersonateUID, "UID to impersonate for the operation.")
	fs.StringArrayVar(&f.ImpersonateGroup, "as-group", f.ImpersonateGroup, "Group to impersonate for the operation, this flag can be repeated to specify multiple groups.")
	fs.StringArrayVar(&f.ImpersonateUserExtra, "as-user-extra", f.ImpersonateUserExtra, "User extras to impersonate for the operation, this flag can be repeated to specify multiple values for the same key.")
	fs.StringVar(&f.Username, "username", f.Username, "Username for basic authentication to the API server")
	fs.StringVar(&f.Password, "password", f.Password, "Password for basic authentication to the API server")
	fs.StringVar(&f.ClusterName, "cluster", f.ClusterName, "The name of the kubeconfig cluster to use")
	fs.StringVar(&f.AuthInfoName, "user", f.AuthInfoName, "The name of the kubeconfig user to use")
	fs.StringVarP(&f.Namespace, "namespace", "n", f.Namespace, "If present, the namespace scope for this CLI request")
	fs.StringVar(&f.Context, "context", f.Context, "The name of the kubeconfig context to use")
	fs.StringVarP(&f.APIServer, "server", "s", f.APIServer, "The address and port of the Kubernetes API server")
	fs.StringVar(&f.TLSServerName, "tls-server-name", f.TLSServerName, "Server name to use for server certificate validation. If it is not provided, the hostname used to contact the server is used")
	fs.BoolVar(&f.Insecure, "insecure-skip-tls-verify", f.Insecure, "If true, the server's certificate will not be checked for validity. This will make your HTTPS connections insecure")
	fs.StringVar(&f.CAFile, "certificate-authority", f.CAFile, "Path to a cert file for the certificate authority")
	fs.StringVar(&f.Timeout, "request-timeout", f.Timeout, "The length of time to wait before giving up on a single server request. Non-zero values should contain a corresponding time unit (e.g. 1s, 2m, 3h). A value of zero means don't timeout requests.")
	fs.BoolVar(&f.DisableCompression, "disable-compression", f.DisableCompression, "If true, opt-out of response compression for all requests to the server")
	fs.StringVar(&f.ProxyURL, "proxy-url", f.ProxyURL, "Proxy URL to use for requests to the API server")
}

// loader reads the kubeconfig with the flags laid over it, as kubectl does.
func (f *Flags) loader() clientcmd.ClientConfig {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.DefaultClientConfig = &clientcmd.DefaultClientConfig
	rules.ExplicitPath = f.KubeConfig
	o := &clientcmd.ConfigOverrides{ClusterDefaults: clientcmd.ClusterDefaults}
	o.AuthInfo.ClientCertificate, o.AuthInfo.ClientKey = f.CertFile, f.KeyFile
	o.AuthInfo.Token = f.BearerToken
	o.AuthInfo.Impersonate, o.AuthInfo.ImpersonateUID = f.Impersonate, f.ImpersonateUID
	o.AuthInfo.ImpersonateGroups = f.ImpersonateGroup
	if len(f.ImpersonateUserExtra) > 0 {
		o.AuthInfo.ImpersonateUserExtra = map[string][]string{}
		for _, extra := range f.ImpersonateUserExtra {
			if k, v, ok := strings.Cut(extra, "="); ok {
				o.AuthInfo.ImpersonateUserExtra[k] = append(o.AuthInfo.ImpersonateUserExtra[k], v)
			}
		}
	}
	o.AuthInfo.Username, o.AuthInfo.Password = f.Username, f.Password
	o.ClusterInfo.Server, o.ClusterInfo.TLSServerName = f.APIServer, f.TLSServerName
	o.ClusterInfo.CertificateAuthority, o.ClusterInfo.InsecureSkipTLSVerify = f.CAFile, f.Insecure
	o.ClusterInfo.DisableCompression, o.ClusterInfo.ProxyURL = f.DisableCompression, f.ProxyURL
	o.CurrentContext, o.Context.Cluster, o.Context.AuthInfo, o.Context.Namespace = f.Context, f.ClusterName, f.AuthInfoName, f.Namespace
	o.Timeout = f.Timeout
	// A kubeconfig user with a username and no password is asked for it.
	return clientcmd.NewInteractiveDeferredLoadingClientConfig(rules, o, os.Stdin)
}
