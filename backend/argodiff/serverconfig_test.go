package argodiff

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// argocdConfig is a config file as `argocd login` writes it (two logins, the
// second current, plus a --core context).
const argocdConfig = `contexts:
- name: argocd.example.com
  server: argocd.example.com
  user: argocd.example.com
- name: staging
  server: localhost:8080
  user: localhost:8080
- name: kubernetes
  server: kubernetes
  user: kubernetes
current-context: staging
prompts-enabled: false
servers:
- grpc-web-root-path: ""
  server: argocd.example.com
- grpc-web-root-path: /argo-cd
  insecure: true
  plain-text: true
  server: localhost:8080
- core: true
  server: kubernetes
users:
- auth-token: token-for-example
  name: argocd.example.com
- auth-token: token-for-staging
  name: localhost:8080
- name: kubernetes
`

// isolate points every place LoadServerConfig looks at into a fresh
// directory, so the machine's own argocd config never leaks into a test.
func isolate(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv(EnvConfigDir, "")
	t.Setenv(EnvServer, "")
	t.Setenv(EnvAuthToken, "")
	return dir
}

func writeConfig(t *testing.T, dir, content string, perm os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config"), []byte(content), perm); err != nil {
		t.Fatal(err)
	}
}

func TestLoadServerConfigFromArgoCDConfigFile(t *testing.T) {
	home := isolate(t)
	writeConfig(t, filepath.Join(home, ".config", "argocd"), argocdConfig, 0o600)

	cfg, err := LoadServerConfig(ServerFlags{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Server != "localhost:8080" || cfg.cred.get() != "token-for-staging" || !cfg.Insecure || !cfg.PlainText || cfg.RootPath != "/argo-cd" {
		t.Fatalf("current context read as %v (token %q)", cfg, cfg.cred.get())
	}
	u, err := cfg.baseURL()
	if err != nil || u.String() != "http://localhost:8080/argo-cd" {
		t.Errorf("base URL %v, %v", u, err)
	}

	other, err := LoadServerConfig(ServerFlags{Context: "argocd.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if other.Server != "argocd.example.com" || other.cred.get() != "token-for-example" || other.Insecure || other.PlainText {
		t.Errorf("named context read as %v", other)
	}
	if u, _ := other.baseURL(); u.String() != "https://argocd.example.com" {
		t.Errorf("base URL %v", u)
	}

	// A --core context has no API server: render locally.
	core, err := LoadServerConfig(ServerFlags{Context: "kubernetes"})
	if err != nil || core != nil {
		t.Errorf("core context gave %v, %v; want no server", core, err)
	}
}

func TestLoadServerConfigOverrides(t *testing.T) {
	home := isolate(t)
	dir := filepath.Join(home, "custom")
	writeConfig(t, dir, argocdConfig, 0o400)
	t.Setenv(EnvConfigDir, dir)

	// ARGOCD_SERVER naming a logged-in server takes that server's token and settings.
	t.Setenv(EnvServer, "argocd.example.com")
	cfg, err := LoadServerConfig(ServerFlags{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Server != "argocd.example.com" || cfg.cred.get() != "token-for-example" || cfg.PlainText {
		t.Errorf("env server read as %v (token %q)", cfg, cfg.cred.get())
	}

	// A server nobody logged in to gets no token from the file: the current
	// context's token is not sent to another server.
	t.Setenv(EnvServer, "evil.example.net")
	if _, err := LoadServerConfig(ServerFlags{}); err == nil || !strings.Contains(err.Error(), "no auth token") {
		t.Errorf("unknown server without a token: %v", err)
	}
	t.Setenv(EnvAuthToken, "env-token")
	cfg, err = LoadServerConfig(ServerFlags{})
	if err != nil || cfg.cred.get() != "env-token" || cfg.From != EnvServer {
		t.Errorf("env server and token: %v, %v", cfg, err)
	}

	// Flags beat the environment.
	cfg, err = LoadServerConfig(ServerFlags{Server: "flag.example.org:8443", Token: " flag-token\n", Insecure: true})
	if err != nil || cfg.Server != "flag.example.org:8443" || cfg.cred.get() != "flag-token" || !cfg.Insecure || cfg.From != "flags" {
		t.Errorf("flags: %v (token %q), %v", cfg, cfg.cred.get(), err)
	}
}

func TestLoadServerConfigWithoutAnyServer(t *testing.T) {
	isolate(t)
	cfg, err := LoadServerConfig(ServerFlags{})
	if err != nil || cfg != nil {
		t.Errorf("nothing configured gave %v, %v; want no server and no error", cfg, err)
	}
}

func TestLoadServerConfigRefusesAFileOthersMayRead(t *testing.T) {
	home := isolate(t)
	writeConfig(t, filepath.Join(home, ".config", "argocd"), argocdConfig, 0o644)
	if _, err := LoadServerConfig(ServerFlags{}); err == nil || !strings.Contains(err.Error(), "0600") {
		t.Errorf("world-readable config: %v", err)
	}
}

func TestLoadServerConfigPrefersTheLegacyDirectory(t *testing.T) {
	home := isolate(t)
	writeConfig(t, filepath.Join(home, ".argocd"), strings.Replace(argocdConfig, "current-context: staging", "current-context: argocd.example.com", 1), 0o600)
	writeConfig(t, filepath.Join(home, ".config", "argocd"), argocdConfig, 0o600)
	cfg, err := LoadServerConfig(ServerFlags{})
	if err != nil || cfg.Server != "argocd.example.com" {
		t.Errorf("with ~/.argocd present: %v, %v", cfg, err)
	}
}

func TestLoadServerConfigReportsABrokenContext(t *testing.T) {
	home := isolate(t)
	writeConfig(t, filepath.Join(home, ".config", "argocd"), argocdConfig, 0o600)
	if _, err := LoadServerConfig(ServerFlags{Context: "nope"}); err == nil || !strings.Contains(err.Error(), `context "nope"`) {
		t.Errorf("unknown context: %v", err)
	}
}
