package testargocd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/driftdeck/driftdeck/backend/argocd"
)

// AddAccount makes a local account that may log in with password and be
// given API tokens (argocd-cm's accounts.<name>: apiKey, login;
// argocd-secret's accounts.<name>.password, hashed by the argocd CLI), as
// an administrator of Argo CD does.
func (s *Server) AddAccount(a *ArgoCD, name, password string) error {
	out, err := s.cli(nil, "account", "bcrypt", "--password", password)
	if err != nil {
		return err
	}
	hash := strings.TrimSpace(out)
	kc, err := kubernetes.NewForConfig(a.cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cm := fmt.Sprintf(`{"data":{"accounts.%s":"apiKey, login"}}`, name)
	if _, err := kc.CoreV1().ConfigMaps(Namespace).Patch(ctx, "argocd-cm", types.MergePatchType, []byte(cm), metav1.PatchOptions{}); err != nil {
		return err
	}
	secret := fmt.Sprintf(`{"stringData":{"accounts.%s.password":%q,"accounts.%s.passwordMtime":%q}}`, name, hash, name, time.Now().UTC().Format(time.RFC3339))
	_, err = kc.CoreV1().Secrets(Namespace).Patch(ctx, "argocd-secret", types.MergePatchType, []byte(secret), metav1.PatchOptions{})
	return err
}

// SetPolicy sets argocd-rbac-cm's policy.csv, with no default role: who
// is not named may do nothing.
func (s *Server) SetPolicy(a *ArgoCD, csv string) error {
	kc, err := kubernetes.NewForConfig(a.cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	patch, err := json.Marshal(map[string]any{"data": map[string]string{"policy.csv": csv, "policy.default": ""}})
	if err != nil {
		return err
	}
	_, err = kc.CoreV1().ConfigMaps(Namespace).Patch(ctx, "argocd-rbac-cm", types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}

// Token logs name in with password (POST /api/v1/session, what `argocd
// login` does) and returns the session token, retrying while the server
// has not read a new account yet.
func (s *Server) Token(name, password string) (string, error) {
	body, err := json.Marshal(map[string]string{"username": name, "password": password})
	if err != nil {
		return "", err
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Post("http://"+s.Addr+"/api/v1/session", "application/json", bytes.NewReader(body))
		if err == nil {
			var out struct {
				Token   string `json:"token"`
				Message string `json:"message"`
			}
			_ = json.NewDecoder(resp.Body).Decode(&out)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && out.Token != "" {
				return out.Token, nil
			}
			err = fmt.Errorf("logging in as %s: %d %s", name, resp.StatusCode, out.Message)
		}
		if time.Now().After(deadline) {
			return "", err
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// AccountToken is an API token of account name that expires after
// expiresIn, made by admin (POST /api/v1/account/{name}/token, what `argocd
// account generate-token --expires-in` does).
func (s *Server) AccountToken(name string, expiresIn time.Duration) (string, error) {
	token, err := s.adminToken("/api/v1/account/"+name+"/token", map[string]any{"name": name, "expiresIn": int64(expiresIn.Seconds())})
	if err != nil {
		return "", fmt.Errorf("a token for %s: %w", name, err)
	}
	return token, nil
}

// ProjectToken gives project default a role with policies (lines of
// argocd-rbac-cm's form, for subject proj:default:<role>) and returns a
// token of that role, made by admin (POST
// /api/v1/projects/default/roles/<role>/token, what `argocd proj role
// create-token` does): Argo CD's way of giving a machine limited rights.
func (s *Server) ProjectToken(a *ArgoCD, role string, policies []string) (string, error) {
	dyn, err := dynamic.NewForConfig(a.cfg)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	roles, err := json.Marshal(map[string]any{"spec": map[string]any{"roles": []any{map[string]any{"name": role, "policies": policies}}}})
	if err != nil {
		return "", err
	}
	if _, err := dyn.Resource(argocd.AppProjects).Namespace(Namespace).Patch(ctx, "default", types.MergePatchType, roles, metav1.PatchOptions{}); err != nil {
		return "", err
	}
	// The server reads the project from its informer: the role may not be
	// there at once.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(300 * time.Millisecond) {
		token, err := s.adminToken("/api/v1/projects/default/roles/"+role+"/token", map[string]any{"project": "default", "role": role})
		if err == nil || time.Now().After(deadline) {
			return token, err
		}
	}
}

// AdminToken is a session token of admin, who may do everything.
func (s *Server) AdminToken() (string, error) { return s.Token("admin", s.password) }

// adminToken is the token a POST of body to path answers, made as admin.
func (s *Server) adminToken(path string, body map[string]any) (string, error) {
	admin, err := s.Token("admin", s.password)
	if err != nil {
		return "", err
	}
	data, err := json.Marshal(body)
	if err != nil {
		return "", err
	}
	req, err := http.NewRequest(http.MethodPost, "http://"+s.Addr+path, bytes.NewReader(data))
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+admin)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var out struct {
		Token   string `json:"token"`
		Message string `json:"message"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode != http.StatusOK || out.Token == "" {
		return "", fmt.Errorf("%d %s", resp.StatusCode, out.Message)
	}
	return out.Token, nil
}
