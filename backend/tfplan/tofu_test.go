package tfplan

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// tofuRun is a real OpenTofu working directory (DRIFTDECK_TOFU), offline:
// terraform_data needs no provider download.
type tofuRun struct {
	t   testing.TB
	bin string
	dir string
	env []string
}

func newTofu(t testing.TB) *tofuRun {
	t.Helper()
	bin := testcluster.Tool(t, "DRIFTDECK_TOFU", "opentofu")
	home := t.TempDir()
	rc := filepath.Join(home, "empty.tfrc")
	if err := os.WriteFile(rc, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, "TF_IN_AUTOMATION=1", "HOME="+home, "TF_DATA_DIR="+filepath.Join(home, "data"))
	return &tofuRun{t: t, bin: bin, dir: t.TempDir(), env: env}
}

func (r *tofuRun) write(name, content string) {
	r.t.Helper()
	if err := os.WriteFile(filepath.Join(r.dir, name), []byte(content), 0o600); err != nil {
		r.t.Fatal(err)
	}
}

func (r *tofuRun) run(args ...string) []byte {
	r.t.Helper()
	cmd := exec.Command(r.bin, args...)
	cmd.Dir, cmd.Env = r.dir, r.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		r.t.Fatalf("tofu %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	if stderr.Len() > 0 {
		r.t.Fatalf("tofu %s warned: %s", strings.Join(args, " "), stderr.String())
	}
	return out
}

// config has an in-place update, a replacement, a destroy, an unchanged
// resource and a sensitive value that changes.
const config = `
variable "size" { default = "small" }
variable "token" {
  default   = "first-secret-value"
  sensitive = true
}
resource "terraform_data" "server" {
  input = { size = var.size, zone = "eu-1", tags = ["a", "b"] }
}
resource "terraform_data" "keep" { input = "stays" }
resource "terraform_data" "cred" { input = var.token }
resource "terraform_data" "gone" {
  count = var.size == "small" ? 1 : 0
  input = "temporary"
}
resource "terraform_data" "replaced" {
  input            = "x"
  triggers_replace = [var.size]
}
output "size" { value = var.size }
`

const newSecret = "second-secret-value"

// storePlan writes a plan as tofu-controller v0.16.5's runner does
// (runner/server_save_tfplan.go): gzipped Secrets, or a ConfigMap for the
// human plan, split into chunks of chunkSize bytes when larger (upstream
// uses 1 MiB; the tests pass a smaller size to get several chunks).
func storePlan(t testing.TB, kc kubernetes.Interface, ns, name, planID, suffix string, data []byte, configMap bool, chunkSize int) {
	t.Helper()
	ctx := context.Background()
	base := ObjectName("default", name, suffix)
	if !configMap {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(data)
		zw.Close()
		data = buf.Bytes()
	}
	labels := map[string]string{LabelPlanName: upstreamLabel(name + suffix), LabelPlanWorkspace: "default"}
	var chunks [][]byte
	for start := 0; start < len(data); start += chunkSize {
		chunks = append(chunks, data[start:min(start+chunkSize, len(data))])
	}
	for i, c := range chunks {
		ann := map[string]string{AnnotationSavedPlan: planID, "infra.contrib.fluxcd.io/plan-full-name": name + suffix, "infra.contrib.fluxcd.io/plan-full-workspace": "default"}
		objName := base
		if len(chunks) > 1 {
			ann[AnnotationChunk] = fmt.Sprint(i)
			objName = fmt.Sprintf("%s-%d", base, i)
		}
		meta := metav1.ObjectMeta{Name: objName, Namespace: ns, Labels: labels, Annotations: ann}
		var err error
		if configMap {
			_, err = kc.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: meta, Data: map[string]string{DataKey: string(c)}}, metav1.CreateOptions{})
		} else {
			ann["encoding"] = "gzip"
			_, err = kc.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: meta, Type: corev1.SecretTypeOpaque, Data: map[string][]byte{DataKey: c}}, metav1.CreateOptions{})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// longName is a Terraform name that fits a label, but not with ".json".
const longName = "eks-cluster-production-eu-west-1-networking-and-vpc-peerings"

// upstreamLabel is the plan-name label tofu-controller v0.16.5 writes
// (SafeLabelValue in api/plan/plan.go: longer than 63 characters, the first
// 46, a dash and 16 hex digits of the SHA-256), as computed by it.
func upstreamLabel(v string) string {
	if v == longName+JSONSuffix {
		return "eks-cluster-production-eu-west-1-networking-an-83aed2c7badca93a"
	}
	if len(v) > 63 {
		panic("no upstream label recorded for " + v)
	}
	return v
}

// clearPlans deletes every stored plan of the namespace.
func clearPlans(t testing.TB, kc kubernetes.Interface, ns string) {
	t.Helper()
	ctx := context.Background()
	if err := kc.CoreV1().ConfigMaps(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: LabelPlanWorkspace}); err != nil {
		t.Fatal(err)
	}
	if err := kc.CoreV1().Secrets(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: LabelPlanWorkspace}); err != nil {
		t.Fatal(err)
	}
}

// tofuChanges reads the planned (address, action) pairs of `tofu show -json`.
func tofuChanges(t testing.TB, js []byte) []string {
	t.Helper()
	var p struct {
		ResourceChanges []struct {
			Address string `json:"address"`
			Change  struct {
				Actions []string `json:"actions"`
			} `json:"change"`
		} `json:"resource_changes"`
	}
	if err := json.Unmarshal(js, &p); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, rc := range p.ResourceChanges {
		if a := jsonAction(rc.Change.Actions); a != "" {
			out = append(out, rc.Address+" "+string(a))
		}
	}
	return out
}

func tofuSummary(t testing.TB, human string) string {
	t.Helper()
	for _, l := range strings.Split(human, "\n") {
		if strings.HasPrefix(l, "Plan: ") {
			return l
		}
	}
	t.Fatalf("no Plan: line in\n%s", human)
	return ""
}
