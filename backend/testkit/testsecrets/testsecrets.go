// Package testsecrets plants known secret values in every place a secret
// can come from (a Secret's data, a Stack's secret config, passphrase and
// outputs, a Terraform plan's sensitive values, the tokens driftdeck is
// given) on a test cluster, so that a test can scan an output for them.
package testsecrets

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

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/backend/tfplan"
	"github.com/driftdeck/driftdeck/backend/tofu"
)

// Values are the known secret values, one per place a secret can come from.
// Each is unique enough that finding it in an output can only mean it leaked.
var Values = map[string]string{
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
	"workspace pod's Secret (in its log)":  "PLANTED-pod-env-token-7a8b",
}

// Scan fails the test for every planted value in out, in clear or base64
// encoded as Kubernetes stores Secret data.
func Scan(t *testing.T, what string, out []byte) {
	t.Helper()
	for where, v := range Values {
		for _, form := range []string{v, base64.StdEncoding.EncodeToString([]byte(v))} {
			if i := bytes.Index(out, []byte(form)); i >= 0 {
				t.Errorf("%s shows the %s %q: …%q…", what, where, form, out[max(i-200, 0):min(i+100, len(out))])
			}
		}
	}
}

// Names of what PlantUnits creates in the namespace.
const (
	Application = "web" // argocd: OutOfSync on the Secret below
	Stack       = "db"  // pulumi: secret config, a literal passphrase, a secret output
	Terraform   = "db"  // tofu: a pending plan with sensitive values
	Secret      = "db"  // the Application's live Secret
)

// PlantUnits creates a unit of each engine holding the planted secrets: an
// Application whose resources include a live Secret (its data a planted
// value), a Stack with plaintext secret config, a literal passphrase and a
// secret output, and a Terraform with a pending plan stored as
// tofu-controller stores it, holding sensitive values.
func PlantUnits(t *testing.T, dyn dynamic.Interface, kc kubernetes.Interface, ns string) {
	t.Helper()
	ctx := context.Background()
	if _, err := kc.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: Secret},
		Data: map[string][]byte{"password": []byte(Values["Secret data (live)"])}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	testcluster.Create(t, dyn, argocd.Applications, ns, fmt.Sprintf(`{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":%q},
		"spec":{"project":"default","source":{"repoURL":"https://git.example.com/a.git","path":"web"},"destination":{"server":"https://kubernetes.default.svc","namespace":%q},"syncPolicy":{"automated":{"selfHeal":true}}},
		"status":{"sync":{"status":"OutOfSync","revision":"0123456789abcdef0123456789abcdef01234567"},"health":{"status":"Healthy"},
			"resources":[{"version":"v1","kind":"Secret","namespace":%q,"name":%q,"status":"OutOfSync"}]}}`, Application, ns, ns, Secret))
	testcluster.Create(t, dyn, pulumiop.Stacks, ns, fmt.Sprintf(`{"apiVersion":"pulumi.com/v1","kind":"Stack","metadata":{"name":%q},
		"spec":{"stack":"org/db/prod","projectRepo":"https://git.example.com/i.git","branch":"main",
			"secrets":{"dbPassword":%q},
			"envRefs":{"PULUMI_CONFIG_PASSPHRASE":{"type":"Literal","literal":{"value":%q}}}},
		"status":{"outputs":{"dbPassword":%q},"conditions":[{"type":"Ready","status":"True","reason":"ProcessingCompleted","message":"","lastTransitionTime":"2026-11-29T10:00:00Z"}]}}`,
		Stack, Values["Stack plaintext secret config"], Values["Stack literal passphrase"], Values["Stack secret output"]))
	plantTerraform(t, dyn, kc, ns)
}

// SensitivePlan is a Terraform plan in tofu's JSON form with a sensitive
// attribute, a sensitive output, a variable and a prior state, all holding
// secrets, beside a plain change (instance_class to db.t3.large).
func SensitivePlan() []byte {
	p := map[string]any{
		"format_version": "1.2",
		"variables":      map[string]any{"db_password": map[string]any{"value": Values["Terraform variable"]}},
		"prior_state":    map[string]any{"values": map[string]any{"root_module": map[string]any{"resources": []any{map[string]any{"values": map[string]any{"password": Values["Terraform prior state"]}}}}}},
		"resource_changes": []any{map[string]any{
			"address": "aws_db_instance.main", "mode": "managed", "type": "aws_db_instance", "name": "main",
			"change": map[string]any{"actions": []any{"update"},
				"before":           map[string]any{"instance_class": "db.t3.small", "password": Values["Terraform prior state"], "tags": map[string]any{"team": "data"}},
				"after":            map[string]any{"instance_class": "db.t3.large", "password": Values["Terraform sensitive attribute"], "tags": map[string]any{"team": "data"}},
				"after_unknown":    map[string]any{},
				"before_sensitive": map[string]any{"password": true},
				"after_sensitive":  map[string]any{"password": true},
			}}},
		"output_changes": map[string]any{"db_password": map[string]any{"actions": []any{"update"},
			"before": "old", "after": Values["Terraform sensitive output"], "before_sensitive": true, "after_sensitive": true}},
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
		"metadata": map[string]any{"name": Terraform, "namespace": ns},
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
	zw.Write(SensitivePlan())
	zw.Close()
	_, err = kc.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: tfplan.ObjectName("default", Terraform, tfplan.JSONSuffix), Namespace: ns,
			Labels:      map[string]string{tfplan.LabelPlanName: Terraform + tfplan.JSONSuffix, tfplan.LabelPlanWorkspace: "default"},
			Annotations: map[string]string{tfplan.AnnotationSavedPlan: planID, tfplan.AnnotationEncoding: "gzip"}},
		Data: map[string][]byte{tfplan.DataKey: buf.Bytes()},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
}

// FakeArgoCD answers managed-resources the way Argo CD's API server does,
// except that it sends the Secret's values in clear (an older or patched
// server, or one whose masking missed a field): driftdeck masks them itself.
// It accepts only the planted Argo CD token.
func FakeArgoCD(t *testing.T) *httptest.Server {
	secret := func(pass string) string {
		b, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "Secret",
			"metadata": map[string]any{"name": Secret, "namespace": "web",
				"annotations": map[string]any{"kubectl.kubernetes.io/last-applied-configuration": `{"data":{"password":"` + base64.StdEncoding.EncodeToString([]byte(pass)) + `"}}`}},
			"data":       map[string]any{"password": base64.StdEncoding.EncodeToString([]byte(pass))},
			"stringData": map[string]any{"extra": Values["Secret stringData"]}})
		return string(b)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+Values["Argo CD token from the argocd config"] {
			http.Error(w, `{"error":"invalid session","message":"invalid session: token has invalid claims","code":16}`, http.StatusUnauthorized)
			return
		}
		if strings.Contains(r.URL.Path, "/applications/gone/") {
			http.Error(w, `{"error":"permission denied","message":"permission denied","code":7}`, http.StatusForbidden)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"items": []any{map[string]any{
			"kind": "Secret", "namespace": "web", "name": Secret,
			"liveState": secret(Values["Secret data (live)"]), "targetState": secret(Values["Secret data (desired)"]),
		}}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// WriteArgoConfig writes an argocd CLI config in dir whose one context is
// the server with the token, as `argocd login` leaves it.
func WriteArgoConfig(t *testing.T, dir, server, token string) {
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
