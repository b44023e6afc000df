package kube

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

const twoContexts = `apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: dev
  cluster: {server: "https://dev.example.com:6443"}
- name: prod
  cluster: {server: "https://prod.example.com:6443"}
users:
- name: me
  user: {token: from-kubeconfig}
contexts:
- name: dev
  context: {cluster: dev, user: me, namespace: apps}
- name: prod
  context: {cluster: prod, user: me}
`

func parseFlags(t *testing.T, args ...string) *Flags {
	t.Helper()
	f := NewFlags()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	f.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestKubectlFlagsLayOverTheKubeconfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(path, []byte(twoContexts), 0o600); err != nil {
		t.Fatal(err)
	}
	f := parseFlags(t, "--kubeconfig", path, "--context", "prod,dev", "-n", "web",
		"--as", "alice", "--as-group", "ops", "--as-group", "sre", "--as-user-extra", "team=a", "--request-timeout", "5s", "--token", "from-flag")
	names, err := ContextNames(f)
	if err != nil || !slices.Equal(names, []string{"prod", "dev"}) {
		t.Fatalf("contexts %v, %v; want prod and dev as given", names, err)
	}
	c, err := Connect(f, "prod")
	if err != nil {
		t.Fatal(err)
	}
	cfg := c.Config
	if cfg.Host != "https://prod.example.com:6443" || c.Namespace != "web" || cfg.BearerToken != "from-flag" || cfg.Timeout != 5*time.Second {
		t.Errorf("prod: host %s, namespace %s, token %q, timeout %v", cfg.Host, c.Namespace, cfg.BearerToken, cfg.Timeout)
	}
	if im := cfg.Impersonate; im.UserName != "alice" || !slices.Equal(im.Groups, []string{"ops", "sre"}) || !slices.Equal(im.Extra["team"], []string{"a"}) {
		t.Errorf("impersonation %+v", im)
	}

	// Without flags: the current context, its namespace and the kubeconfig's user.
	plain := parseFlags(t, "--kubeconfig", path)
	if names, _ := ContextNames(plain); !slices.Equal(names, []string{"dev"}) {
		t.Errorf("contexts %v, want the current one", names)
	}
	c, err = Connect(plain, "dev")
	if err != nil || c.Config.Host != "https://dev.example.com:6443" || c.Namespace != "apps" || c.Config.BearerToken != "from-kubeconfig" {
		t.Errorf("dev: %+v, %v", c, err)
	}

	if _, err := ContextNames(parseFlags(t, "--kubeconfig", path, "--context", "staging")); err == nil {
		t.Error("an unknown context was accepted")
	}
	empty := filepath.Join(t.TempDir(), "none")
	t.Setenv("KUBECONFIG", empty)
	t.Setenv("HOME", t.TempDir())
	if _, err := ContextNames(parseFlags(t)); !errors.Is(err, ErrNoKubeconfig) {
		t.Errorf("no kubeconfig anywhere: %v", err)
	}
}
