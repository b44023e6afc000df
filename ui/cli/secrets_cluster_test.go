package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/backend/testkit/testsecrets"
	"github.com/driftdeck/driftdeck/backend/tfplan"
)

var planted = testsecrets.Values

func scan(t *testing.T, what, out string) {
	t.Helper()
	testsecrets.Scan(t, what, []byte(out))
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
	testsecrets.PlantUnits(t, dyn, c.Kube(t), ns)
	argo := testsecrets.FakeArgoCD(t)
	argoDir := filepath.Join(os.Getenv("HOME"), ".config", "argocd")
	testsecrets.WriteArgoConfig(t, argoDir, strings.TrimPrefix(argo.URL, "http://"), planted["Argo CD token from the argocd config"])
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
	testsecrets.WriteArgoConfig(t, argoDir, strings.TrimPrefix(argo.URL, "http://"), planted["Argo CD token from the argocd config"]+"-revoked")
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
