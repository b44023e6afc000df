package testargocd

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/driftdeck/driftdeck/backend/internal/procgroup"
)

// Server is a running argocd-server, without TLS, reading the same redis,
// repo-server and cluster as the controller. Its only account is admin.
type Server struct {
	// Addr is host:port, as `argocd login` is given it.
	Addr     string
	password string
	argocd   string
}

type serverOnce struct {
	once sync.Once
	srv  *Server
	err  error
}

// StartServer runs argocd-server beside the controller, once: later calls
// return the same server (or the same error). It stops with Stop.
func (a *ArgoCD) StartServer() (*Server, error) {
	a.server.once.Do(func() { a.server.srv, a.server.err = a.startServer() })
	return a.server.srv, a.server.err
}

func (a *ArgoCD) startServer() (*Server, error) {
	password, err := randomPassword()
	if err != nil {
		return nil, err
	}
	srv := &Server{password: password, argocd: a.bins.argocd}
	if err := srv.setAdminPassword(a); err != nil {
		return nil, fmt.Errorf("setting the admin password in argocd-secret: %w", err)
	}
	ports, err := procgroup.FreePorts(2)
	if err != nil {
		return nil, err
	}
	srv.Addr = "127.0.0.1:" + ports[0]
	env := []string{"ARGOCD_BINARY_NAME=argocd-server", "ARGOCD_FAKE_IN_CLUSTER=true",
		"KUBECONFIG=" + a.kubeconfig, "TMPDIR=" + filepath.Join(a.procs.Dir, "tmp"), "HOME=" + a.procs.Dir}
	if err := a.procs.Run("server", a.bins.argocd, env, "--kubeconfig", a.kubeconfig, "--namespace", Namespace,
		"--insecure", "--address", "127.0.0.1", "--port", ports[0], "--metrics-port", ports[1],
		"--redis", a.redisAddr, "--repo-server", a.repoAddr, "--repo-server-plaintext",
		"--loglevel", "info"); err != nil {
		return nil, err
	}
	if err := procgroup.WaitListening(srv.Addr, 60*time.Second); err != nil {
		return nil, a.procs.Failed("server", err)
	}
	return srv, nil
}

// setAdminPassword stores password's bcrypt hash where argocd-server looks
// for the admin account's (argocd-secret), hashed by the argocd CLI itself.
func (s *Server) setAdminPassword(a *ArgoCD) error {
	out, err := s.cli(nil, "account", "bcrypt", "--password", s.password)
	if err != nil {
		return err
	}
	hash := strings.TrimSpace(out)
	if !strings.HasPrefix(hash, "$2") {
		return fmt.Errorf("argocd account bcrypt printed %q, not a bcrypt hash", hash)
	}
	kc, err := kubernetes.NewForConfig(a.cfg)
	if err != nil {
		return err
	}
	patch := fmt.Sprintf(`{"stringData":{"admin.password":%q,"admin.passwordMtime":%q}}`,
		hash, time.Now().UTC().Format(time.RFC3339))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = kc.CoreV1().Secrets(Namespace).Patch(ctx, "argocd-secret", types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	return err
}

// Login runs `argocd login` as admin, as a user would, with home as HOME: the
// CLI writes its config file where it keeps it by default under home. It
// retries while the server is still starting.
func (s *Server) Login(home string) error {
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=", "ARGOCD_CONFIG_DIR="}
	deadline := time.Now().Add(90 * time.Second)
	for {
		_, err := s.cli(env, "login", s.Addr, "--plaintext", "--username", "admin", "--password", s.password)
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(time.Second)
	}
}

// LoginPortForward runs `argocd login --port-forward` as admin, as a user
// reaching argocd-server's pod through the Kubernetes API does, with home
// as HOME and kubeconfig as the kube identity; it retries while the server
// is still starting.
func (s *Server) LoginPortForward(home, kubeconfig, namespace string) error {
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=", "ARGOCD_CONFIG_DIR=", "KUBECONFIG=" + kubeconfig}
	deadline := time.Now().Add(90 * time.Second)
	for {
		_, err := s.cli(env, "login", "--port-forward", "--port-forward-namespace", namespace, "--plaintext", "--username", "admin", "--password", s.password)
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(time.Second)
	}
}

// cli runs the argocd CLI (the same multi-call binary) with the extra
// environment; its output, or an error with it.
func (s *Server) cli(env []string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.argocd, args...)
	cmd.Env = append(os.Environ(), append([]string{"ARGOCD_BINARY_NAME=argocd"}, env...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		// The password is a throwaway, but keep it out of failure messages.
		return "", fmt.Errorf("argocd %s: %w\n%s", args[0], err, strings.ReplaceAll(string(out), s.password, "<password>"))
	}
	return string(out), nil
}

func randomPassword() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// Restart stops argocd-server and starts it again on the same address, as
// a rollout of it does under its clients; it returns once it listens.
func (s *Server) Restart(a *ArgoCD) error {
	if err := a.procs.Restart("server"); err != nil {
		return err
	}
	if err := procgroup.WaitListening(s.Addr, 60*time.Second); err != nil {
		return a.procs.Failed("server", err)
	}
	return nil
}
