package cli

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/driftdeck/driftdeck/backend/testcluster"
	"github.com/driftdeck/driftdeck/backend/tfplan"
	"github.com/driftdeck/driftdeck/backend/tofu"
)

// Known secret values, one per place a secret can come from. Each is unique
// enough that finding it in an output can only mean it leaked.
var planted = map[string]string{
	"Secret data (live)":                   "PLANTED-live-db-pass-1f2e",
	"Secret data (desired)":                "PLANTED-new-db-pass-3c4d",
	"Secret stringData":                    "PLANTED-string-data-5a6b",
	"Terraform sensitive attribute":        "PLANTED-tf-attr-7e8f",
	"Terraform sensitive output":           "PLANTED-tf-output-9a0b",
	"Terraform variable":                   "PLANTED-tf-var-c1d2",
	"Terraform prior state":                "PLANTED-tf-state-e3f4",
	"Stack literal passphrase":             "PLANTED-passphrase-a5b6",
	"Stack plaintext secret config":        "PLANTED-stack-secret-c7d8",
	"Stack secret output":                  "PLANTED-stack-output-e9f0",
	"Argo CD token from the argocd config": "PLANTED-argocd-token-1a2b",
	"kubeconfig bearer token":              "PLANTED-kube-token-3c4d",
	"PULUMI_CONFIG_PASSPHRASE":             "PLANTED-env-passphrase-5e6f",
}

// scan fails the test for every planted value in out, in clear or base64
// encoded as Kubernetes stores Secret data.
func scan(t *testing.T, what, out string) {
	t.Helper()
	for where, v := range planted {
		if strings.Contains(out, v) || strings.Contains(out, base64.StdEncoding.EncodeToString([]byte(v))) {
			t.Errorf("%s shows the %s %q:\n%s", what, where, v, out)
		}
	}
}

// A Terraform plan in tofu's JSON form with a sensitive attribute, a
// sensitive output, a variable and a prior state, all holding secrets.
func sensitivePlan() []byte {
	p := map[string]any{
		"format_version": "1.2",
		"variables":      map[string]any{"db_password": map[string]any{"value": planted["Terraform variable"]}},
		"prior_state":    map[string]any{"values": map[string]any{"root_module": map[string]any{"resources": []any{map[string]any{"values": map[string]any{"password": planted["Terraform prior state"]}}}}}},
		"resource_changes": []any{map[string]any{
			"address": "aws_db_instance.main", "mode": "managed", "type": "aws_db_instance", "name": "main",
			"change": map[string]any{"actions": []any{"update"},
				"before":           map[string]any{"instance_class": "db.t3.small", "password": planted["Terraform prior state"], "tags": map[string]any{"team": "data"}},
				"after":            map[string]any{"instance_class": "db.t3.large", "password": planted["Terraform sensitive attribute"], "tags": map[string]any{"team": "data"}},
				"after_unknown":    map[string]any{},
				"before_sensitive": map[string]any{"password": true},
				"after_sensitive":  map[string]any{"password": true},
			}}},
		"output_changes": map[string]any{"db_password": map[string]any{"actions": []any{"update"},
			"before": "old", "after": planted["Terraform sensitive output"], "before_sensitive": true, "after_sensitive": true}},
	}
	b, _ := json.Marshal(p)
	return b
}

func plantTerraform(t *testing.T, dyn dynamic.Interface, kc kubernetes.Interface, ns string) {
	t.Helper()
	ctx := context.Background()
	const planID = "plan-main-1a2b3c4d5e"
	ri := dyn.Resource(tofu.Terraforms[0]).Namespace(ns)
	created, err := ri.Create(ctx, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "infra.contrib.fluxcd.io/v1alpha2", "kind": "Terraform",
		"metadata": map[string]any{"name": "db", "namespace": ns},
		"spec": map[string]any{"interval": "10m", "path": "./", "storeReadablePlan": "json",
			"sourceRef": map[string]any{"kind": "GitRepository", "name": "infra"}},
	}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created.Object["status"] = map[string]any{"plan": map[string]any{"pending": planID}, "lastPlannedGeneration": created.GetGeneration()}
	if _, err := ri.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(sensitivePlan())
	zw.Close()
	_, err = kc.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: tfplan.ObjectName("default", "db", tfplan.JSONSuffix), Namespace: ns,
			Labels:      map[string]string{tfplan.LabelPlanName: "db" + tfplan.JSONSuffix, tfplan.LabelPlanWorkspace: "default"},
			Annotations: map[string]string{tfplan.AnnotationSavedPlan: planID, tfplan.AnnotationEncoding: "gzip"}},
		Data: map[string][]byte{tfplan.DataKey: buf.Bytes()},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
}

// fakeArgoCD answers managed-resources the way Argo CD's API server does,
// except that it sends the Secret's values in clear (an older or patched
// server, or one whose masking missed a field): driftdeck masks them itself.
func fakeArgoCD(t *testing.T) *httptest.Server {
	secret := func(pass string) string {
		b, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "Secret",
			"metadata": map[string]any{"name": "db", "namespace": "web",
				"annotations": map[string]any{"kubectl.kubernetes.io/last-applied-configuration": `{"data":{"password":"` + base64.StdEncoding.EncodeToString([]byte(pass)) + `"}}`}},
			"data":       map[string]any{"password": base64.StdEncoding.EncodeToString([]byte(pass))},
			"stringData": map[string]any{"extra": planted["Secret stringData"]}})
		return string(b)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+planted["Argo CD token from the argocd config"] {
			http.Error(w, `{"error":"invalid session","message":"invalid session: token has invalid claims","code":16}`, http.StatusUnauthorized)
			return
		}
		if strings.Contains(r.URL.Path, "/applications/gone/") {
			http.Error(w, `{"error":"permission denied","message":"permission denied","code":7}`, http.StatusForbidden)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"items": []any{map[string]any{
			"kind": "Secret", "namespace": "web", "name": "db",
			"liveState": secret(planted["Secret data (live)"]), "targetState": secret(planted["Secret data (desired)"]),
		}}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// Every place a secret can come from, planted with a known value, and every
// output driftdeck has scanned for it: status in each form, doctor, the
// diffs of every engine that has one, the audit log of writes, and the
// errors of a rejected token.
func TestClusterNoPlantedSecretReachesAnyOutput(t *testing.T) {
	c := testcluster.Shared(t)
	isolate(t)
	t.Setenv("PULUMI_CONFIG_PASSPHRASE", planted["PULUMI_CONFIG_PASSPHRASE"])
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	createJSON(t, dyn, ns, `{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"web"},
		"spec":{"project":"default","source":{"repoURL":"https://git.example.com/a.git","path":"web"},"destination":{"server":"https://kubernetes.default.svc","namespace":"web"},"syncPolicy":{"automated":{"selfHeal":true}}},
		"status":{"sync":{"status":"OutOfSync","revision":"0123456789abcdef0123456789abcdef01234567"},"health":{"status":"Healthy"}}}`)
	createJSON(t, dyn, ns, fmt.Sprintf(`{"apiVersion":"pulumi.com/v1","kind":"Stack","metadata":{"name":"db"},
		"spec":{"stack":"org/db/prod","projectRepo":"https://git.example.com/i.git","branch":"main",
			"secrets":{"dbPassword":%q},
			"envRefs":{"PULUMI_CONFIG_PASSPHRASE":{"type":"Literal","literal":{"value":%q}}}},
		"status":{"outputs":{"dbPassword":%q},"conditions":[{"type":"Ready","status":"True","reason":"ProcessingCompleted","message":"","lastTransitionTime":"2026-11-29T10:00:00Z"}]}}`,
		planted["Stack plaintext secret config"], planted["Stack literal passphrase"], planted["Stack secret output"]))
	plantTerraform(t, dyn, c.Kube(t), ns)
	argo := fakeArgoCD(t)
	argoDir := filepath.Join(os.Getenv("HOME"), ".config", "argocd")
	writeArgoConfig(t, argoDir, strings.TrimPrefix(argo.URL, "http://"), planted["Argo CD token from the argocd config"])
	t.Setenv("ARGOCD_CONFIG_DIR", argoDir)
	kc := testcluster.Kubeconfig(t, c.Config(), "test")

	// In order: the resume needs the pause before it.
	outputs := []struct {
		what string
		args []string
	}{
		{"status -o json", []string{"status", "-o", "json"}}, {"status -o wide", []string{"status", "-o", "wide"}}, {"status", []string{"status"}},
		{"doctor -o json", []string{"doctor", "-o", "json"}}, {"doctor", []string{"doctor"}},
		{"diff of the Terraform", []string{"diff", "terraform/" + ns + "/db"}},
		{"diff of the Application", []string{"diff", "argocd/" + ns + "/web"}},
		{"pause of the Stack", []string{"pause", "pulumi/" + ns + "/db", "--reason", "INC-1", "--yes"}},
		{"resume of the Stack", []string{"resume", "pulumi/" + ns + "/db", "--reason", "INC-1", "--yes"}},
		{"pause of the Application", []string{"pause", "argocd/" + ns + "/web", "--reason", "INC-1", "--yes"}},
	}
	for _, o := range outputs {
		code, out, stderr := run(t, append(o.args, "-n", ns, "--kubeconfig", kc)...)
		if code > 1 {
			t.Errorf("%s: exit %d: %s", o.what, code, stderr)
		}
		scan(t, o.what, out+stderr)
	}
	// The diffs ran, the values were there to leak, and the change still shows.
	_, out, stderr := run(t, "diff", "terraform/"+ns+"/db", "--kubeconfig", kc)
	if !strings.Contains(out, "db.t3.large") || !strings.Contains(out, tfplan.SensitiveChanged) {
		t.Errorf("the Terraform diff must show the plain change and the sensitive one masked:\n%s", out)
	}
	_, out, _ = run(t, "diff", "argocd/"+ns+"/web", "--kubeconfig", kc)
	if !strings.Contains(out, "Secret") || !strings.Contains(out, "password:") {
		t.Errorf("the Application diff must show the Secret's changed key, masked:\n%s", out)
	}

	// Errors: a rejected Argo CD token, an Application the token may not
	// read, a rejected kubeconfig token.
	writeArgoConfig(t, argoDir, strings.TrimPrefix(argo.URL, "http://"), planted["Argo CD token from the argocd config"]+"-revoked")
	_, out, stderr = run(t, "diff", "argocd/"+ns+"/web", "--kubeconfig", kc)
	if !strings.Contains(out+stderr, "token was rejected") {
		t.Errorf("a rejected Argo CD token must say so: %s%s", out, stderr)
	}
	scan(t, "the error of a rejected Argo CD token", strings.ReplaceAll(out+stderr, "-revoked", ""))
	// A preview the helper cannot run (no git server): its error names no
	// passphrase from the environment or the Stack.
	code, out, stderr := run(t, "preview", "pulumi/"+ns+"/db", "--kubeconfig", kc)
	if code == 0 {
		t.Errorf("a preview of a Stack with no reachable source succeeded: %s", out)
	}
	scan(t, "the error of a preview that cannot run", out+stderr)
	bad := rest.CopyConfig(c.Config())
	bad.CertData, bad.KeyData, bad.BearerToken = nil, nil, planted["kubeconfig bearer token"]
	badKC := testcluster.Kubeconfig(t, bad, "test")
	for _, args := range [][]string{{"status", "-o", "json"}, {"pause", "argocd/" + ns + "/web", "--reason", "x", "--yes"}, {"diff", "terraform/" + ns + "/db"}} {
		code, out, stderr := run(t, append(args, "-n", ns, "--kubeconfig", badKC)...)
		if code == 0 {
			t.Errorf("%v with a rejected bearer token exited 0", args)
		}
		scan(t, fmt.Sprintf("%v with a rejected bearer token", args), out+stderr)
	}

	log, err := os.ReadFile(filepath.Join(os.Getenv("XDG_STATE_HOME"), "driftdeck", "audit.jsonl"))
	if err != nil || bytes.Count(log, []byte("\n")) < 3 {
		t.Fatalf("the writes were not audited (%v):\n%s", err, log)
	}
	scan(t, "the audit log", string(log))
}

func writeArgoConfig(t *testing.T, dir, server, token string) {
	t.Helper()
	cfg := fmt.Sprintf(`current-context: test
contexts:
- name: test
  server: %s
  user: %s
servers:
- server: %s
  plain-text: true
users:
- name: %s
  auth-token: %s
`, server, server, server, server, token)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}
