package argodiff

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

// The environment variables the argocd CLI reads, honoured the same way.
const (
	EnvServer    = "ARGOCD_SERVER"
	EnvAuthToken = "ARGOCD_AUTH_TOKEN"
	EnvConfigDir = "ARGOCD_CONFIG_DIR"
)

// ServerFlags are the command line's say on the Argo CD API server; each
// non-empty field overrides the environment and the argocd config file.
type ServerFlags struct {
	Server     string // --argocd-server: host[:port], or a URL
	Token      string // --argocd-token
	Context    string // a context of the argocd config file; empty means its current-context
	ConfigPath string // the argocd config file; empty means the argocd CLI's default
	Insecure   bool   // skip TLS verification
	PlainText  bool   // plain HTTP
}

// ServerConfig is a resolved Argo CD API server connection. Its token is
// never printed: String and GoString leave it out.
type ServerConfig struct {
	Server    string // as configured: host[:port] or a URL
	Insecure  bool   // skip TLS certificate verification
	PlainText bool   // plain HTTP instead of TLS
	RootPath  string // the server's --rootpath (grpc-web-root-path in the argocd config)
	// From says where the server was configured, for messages.
	From string
	// Named: a flag or the environment named the server, not only the
	// argocd CLI's config file.
	Named bool

	cred       *credential
	caPEM      []byte
	clientCert *tls.Certificate
	// dial, when set, makes every connection (a port-forward to the
	// server's pod).
	dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// PortForwardServer is the server name argocd --port-forward logs in to
// and keeps its token under.
const PortForwardServer = "port-forward"

// Through makes every connection to the server with dial, a port-forward
// to its pod named by via, as argocd --port-forward does: the pod serves
// its own self-signed certificate, so TLS is not verified.
func (c *ServerConfig) Through(dial func(ctx context.Context, network, addr string) (net.Conn, error), via string) {
	c.dial, c.Insecure = dial, true
	c.From += ", through " + via
}

// NewServerConfig is a connection to server with token, verifying TLS.
func NewServerConfig(server, token string) *ServerConfig {
	return &ServerConfig{Server: server, cred: &credential{token: token}, From: "flags", Named: true}
}

// String names the server and its settings, never the token.
func (c ServerConfig) String() string {
	var b strings.Builder
	b.WriteString(c.Server)
	if c.PlainText {
		b.WriteString(" (plain text)")
	} else if c.Insecure {
		b.WriteString(" (TLS not verified)")
	}
	if c.From != "" {
		b.WriteString(" from " + c.From)
	}
	return b.String()
}

// GoString keeps %#v from printing the token.
func (c ServerConfig) GoString() string { return "argodiff.ServerConfig{" + c.String() + "}" }

// localConfig is the argocd CLI's config file (util/localconfig upstream):
// YAML with contexts that pair a server entry with a user entry. argocd login
// names the user after the server.
type localConfig struct {
	CurrentContext string `json:"current-context"`
	Contexts       []struct {
		Name   string `json:"name"`
		Server string `json:"server"`
		User   string `json:"user"`
	} `json:"contexts"`
	Servers []localServer `json:"servers"`
	Users   []localUser   `json:"users"`
}

type localUser struct {
	Name         string `json:"name"`
	AuthToken    string `json:"auth-token"`
	RefreshToken string `json:"refresh-token"`
}

type localServer struct {
	Server          string `json:"server"`
	Insecure        bool   `json:"insecure"`
	GRPCWebRootPath string `json:"grpc-web-root-path"`
	PlainText       bool   `json:"plain-text"`
	Core            bool   `json:"core"`
	CAData          string `json:"certificate-authority-data"`
	ClientCertData  string `json:"client-certificate-data"`
	ClientKeyData   string `json:"client-certificate-key-data"`
}

func (l *localConfig) server(name string) (localServer, bool) {
	for _, s := range l.Servers {
		if s.Server == name {
			return s, true
		}
	}
	return localServer{}, false
}

func (l *localConfig) user(name string) (localUser, bool) {
	for _, u := range l.Users {
		if u.Name == name {
			return u, true
		}
	}
	return localUser{}, false
}

// DefaultConfigPath is where the argocd CLI keeps its config:
// $ARGOCD_CONFIG_DIR/config, else ~/.argocd/config when that directory exists,
// else $XDG_CONFIG_HOME/argocd/config, else ~/.config/argocd/config.
func DefaultConfigPath() (string, error) {
	if dir := os.Getenv(EnvConfigDir); dir != "" {
		return filepath.Join(dir, "config"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(filepath.Join(home, ".argocd")); err == nil && fi.IsDir() {
		return filepath.Join(home, ".argocd", "config"), nil
	}
	if xdg := os.Getenv("XDG_CONFIG_HOME"); xdg != "" {
		return filepath.Join(xdg, "argocd", "config"), nil
	}
	return filepath.Join(home, ".config", "argocd", "config"), nil
}

// LoadServerConfig resolves the API server as the argocd CLI does: the config
// file's context, overridden by ARGOCD_SERVER and ARGOCD_AUTH_TOKEN, overridden
// by flags. It returns nil and no error when no server is configured anywhere
// (or the context is a --core one, which has no API server): then the diff is
// rendered locally.
//
// When the server is overridden, the token is only taken from the config file
// if the file has a user for that very server, so a token is never sent to a
// server it was not issued for.
func LoadServerConfig(flags ServerFlags) (*ServerConfig, error) {
	path := flags.ConfigPath
	if path == "" {
		var err error
		if path, err = DefaultConfigPath(); err != nil {
			return nil, err
		}
	}
	file, err := readLocalConfig(path)
	if err != nil {
		return nil, err
	}

	cfg := &ServerConfig{}
	var settings localServer
	var fileServer string
	var user localUser // the file's, whose token is sent
	if file != nil {
		ctxName := flags.Context
		if ctxName == "" {
			ctxName = file.CurrentContext
		}
		if ctxName != "" {
			s, u, err := file.resolve(ctxName)
			if err != nil {
				return nil, fmt.Errorf("argocd config %s: %w", path, err)
			}
			if !s.Core {
				fileServer, settings, user = s.Server, s, u
				cfg.Server, cfg.From = s.Server, fmt.Sprintf("argocd config %s (context %s)", path, ctxName)
			}
		}
	}
	if v := os.Getenv(EnvServer); v != "" {
		cfg.Server, cfg.From, cfg.Named = v, EnvServer, true
	}
	if flags.Server != "" {
		cfg.Server, cfg.From, cfg.Named = flags.Server, "flags", true
	}
	if cfg.Server == "" {
		return nil, nil
	}
	if cfg.Server != fileServer {
		settings, user = localServer{}, localUser{}
		if file != nil {
			settings, _ = file.server(cfg.Server)
			user, _ = file.user(cfg.Server)
		}
	}
	// A token from the file is renewed with the file's refresh token, and
	// written back there, as the argocd CLI does; one given otherwise is not.
	cfg.cred = &credential{token: user.AuthToken, refresh: user.RefreshToken, file: path, user: user.Name}
	if v := os.Getenv(EnvAuthToken); v != "" {
		cfg.cred = &credential{token: strings.TrimSpace(v)}
	}
	if flags.Token != "" {
		cfg.cred = &credential{token: strings.TrimSpace(flags.Token)}
	}
	if cfg.cred.token == "" {
		return nil, fmt.Errorf("Argo CD API server %s has no auth token: run `argocd login %s`, or set %s", cfg.Server, LoginArgs(cfg.Server), EnvAuthToken)
	}
	cfg.Insecure = settings.Insecure || flags.Insecure
	cfg.PlainText = settings.PlainText || flags.PlainText
	cfg.RootPath = settings.GRPCWebRootPath
	if err := cfg.setCertificates(settings); err != nil {
		return nil, fmt.Errorf("argocd config %s, server %s: %w", path, cfg.Server, err)
	}
	return cfg, nil
}

// readLocalConfig reads the argocd config file; nil when there is none. Like
// the argocd CLI, it refuses a file others may read: it holds tokens.
func readLocalConfig(path string) (*localConfig, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if perm := fi.Mode().Perm(); perm != 0o600 && perm != 0o400 {
		return nil, fmt.Errorf("argocd config %s has permissions %s: make it 0600 or 0400, as the argocd CLI requires", path, perm)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var lc localConfig
	if err := yaml.Unmarshal(data, &lc); err != nil {
		return nil, fmt.Errorf("argocd config %s: %w", path, err)
	}
	return &lc, nil
}

func (l *localConfig) resolve(name string) (localServer, localUser, error) {
	for _, c := range l.Contexts {
		if c.Name != name {
			continue
		}
		s, ok := l.server(c.Server)
		if !ok {
			return localServer{}, localUser{}, fmt.Errorf("context %q names server %q, which is not in the file", name, c.Server)
		}
		u, ok := l.user(c.User)
		if !ok {
			return localServer{}, localUser{}, fmt.Errorf("context %q names user %q, who is not in the file", name, c.User)
		}
		return s, u, nil
	}
	return localServer{}, localUser{}, fmt.Errorf("context %q is not in the file", name)
}

func (c *ServerConfig) setCertificates(s localServer) error {
	if s.CAData != "" {
		pem, err := base64.StdEncoding.DecodeString(s.CAData)
		if err != nil {
			return fmt.Errorf("certificate-authority-data: %w", err)
		}
		c.caPEM = pem
	}
	if (s.ClientCertData == "") != (s.ClientKeyData == "") {
		return errors.New("client-certificate-data and client-certificate-key-data must be given together")
	}
	if s.ClientCertData == "" {
		return nil
	}
	certPEM, err := base64.StdEncoding.DecodeString(s.ClientCertData)
	if err != nil {
		return fmt.Errorf("client-certificate-data: %w", err)
	}
	keyPEM, err := base64.StdEncoding.DecodeString(s.ClientKeyData)
	if err != nil {
		return fmt.Errorf("client-certificate-key-data: %w", err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return fmt.Errorf("client certificate: %w", err)
	}
	c.clientCert = &cert
	return nil
}

// baseURL is the server's HTTP root: the configured URL, or host[:port] with
// https (http when plain text), under the root path.
func (c *ServerConfig) baseURL() (*url.URL, error) {
	raw := c.Server
	if !strings.Contains(raw, "://") {
		scheme := "https://"
		if c.PlainText {
			scheme = "http://"
		}
		raw = scheme + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("Argo CD server address %q is not host[:port] or a URL", c.Server)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("Argo CD server address %q: scheme %q is neither http nor https", c.Server, u.Scheme)
	}
	u.User = nil
	u.Path = strings.TrimSuffix(u.Path, "/")
	if root := strings.Trim(c.RootPath, "/"); root != "" {
		u.Path += "/" + root
	}
	return u, nil
}

// HTTPClient is a client for the server, TLS as configured; its requests
// are made by Request.
func (c *ServerConfig) HTTPClient() (*http.Client, error) { return c.httpClient() }

// Authorize puts the token, as it is now (an SSO login's is renewed), on
// req.
func (c *ServerConfig) Authorize(req *http.Request) {
	req.Header.Set("Authorization", "Bearer "+c.cred.get())
}

// Request is a request to path under the server's root, authorised by the
// token, asking for JSON.
func (c *ServerConfig) Request(ctx context.Context, method string, query url.Values, path ...string) (*http.Request, error) {
	base, err := c.baseURL()
	if err != nil {
		return nil, err
	}
	u := base.JoinPath(path...)
	u.RawQuery = query.Encode()
	req, err := http.NewRequestWithContext(ctx, method, u.String(), nil)
	if err != nil {
		return nil, err
	}
	c.Authorize(req)
	req.Header.Set("Accept", "application/json")
	return req, nil
}
