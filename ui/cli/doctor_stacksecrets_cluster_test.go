package cli

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// stackWithRefs is a Stack of the operator 2.x reading its passphrase and
// state credentials as REFS says.
func stackWithRefs(name, refs string) string {
	return `{"apiVersion":"pulumi.com/v1","kind":"Stack","metadata":{"name":"` + name + `"},
		"spec":{"stack":"org/` + name + `/prod","projectRepo":"https://git.example.com/i.git","branch":"main","backend":"s3://state",
			"envRefs":` + refs + `}}`
}

// doctor names the Stacks whose Secrets cannot be read as they say, and a
// passphrase written in a spec, from a real API server: a missing Secret,
// a Secret without the key, and a literal passphrase each as a finding,
// the Stack whose Secret holds its key not at all, and no value printed.
func TestClusterDoctorNamesTheStacksWhoseSecretsAreMissingOrInTheSpec(t *testing.T) {
	c := testcluster.Shared(t)
	isolate(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "pulumi-state", Namespace: ns},
		Data: map[string][]byte{"passphrase": []byte("value-never-shown"), "aws-secret": []byte("value-never-shown")}}
	if _, err := c.Kube(t).CoreV1().Secrets(ns).Create(context.Background(), secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ref := func(name, key string) string {
		return `{"type":"Secret","secret":{"name":"` + name + `","key":"` + key + `"}}`
	}
	createJSON(t, dyn, ns, stackWithRefs("ready", `{"PULUMI_CONFIG_PASSPHRASE":`+ref("pulumi-state", "passphrase")+`,"AWS_SECRET_ACCESS_KEY":`+ref("pulumi-state", "aws-secret")+`}`))
	createJSON(t, dyn, ns, stackWithRefs("no-secret", `{"PULUMI_CONFIG_PASSPHRASE":`+ref("gone", "passphrase")+`}`))
	createJSON(t, dyn, ns, stackWithRefs("no-key", `{"PULUMI_CONFIG_PASSPHRASE":`+ref("pulumi-state", "pass")+`}`))
	createJSON(t, dyn, ns, stackWithRefs("literal", `{"PULUMI_CONFIG_PASSPHRASE":{"type":"Literal","literal":{"value":"hunter2-in-the-spec"}},"AWS_REGION":{"type":"Literal","literal":{"value":"eu-west-1"}}}`))

	code, stdout, stderr := run(t, "doctor", "--kubeconfig", testcluster.Kubeconfig(t, c.Config(), "secrets"), "-n", ns)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (findings); stderr:\n%s\nstdout:\n%s", code, stderr, stdout)
	}
	t.Logf("doctor:\n%s", stdout)
	for _, want := range []string{
		"pulumi/" + ns + "/no-secret  missing secret\n  cause: envRefs.PULUMI_CONFIG_PASSPHRASE names Secret " + ns + "/gone, which does not exist",
		"pulumi/" + ns + "/no-key  missing secret\n  cause: envRefs.PULUMI_CONFIG_PASSPHRASE names Secret " + ns + "/pulumi-state, which has no key pass (its keys: aws-secret, passphrase)",
		"pulumi/" + ns + "/literal  secret in spec\n  cause: envRefs.PULUMI_CONFIG_PASSPHRASE is written in the Stack's spec",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("doctor does not say\n%s", want)
		}
	}
	for _, never := range []string{"/ready ", "value-never-shown", "hunter2", "AWS_REGION"} {
		if strings.Contains(stdout, never) {
			t.Errorf("doctor printed %q", never)
		}
	}

	// Who may read the Stacks but not the Secrets is told once that they
	// were not checked, and the Stacks are no finding for it; the literal
	// passphrase still is.
	cfg := c.UserConfig(t, "stack-reader-"+ns, []rbacv1.PolicyRule{{APIGroups: []string{"pulumi.com"}, Resources: []string{"stacks"}, Verbs: []string{"get", "list", "watch"}}}, ns)
	code, stdout, stderr = run(t, "doctor", "--kubeconfig", testcluster.Kubeconfig(t, cfg, "reader"), "-n", ns)
	if code != 1 || !strings.Contains(stdout, "/literal  secret in spec") || strings.Contains(stdout, "missing secret") {
		t.Errorf("doctor as who may not read Secrets: exit %d, want 1 with the literal passphrase alone:\n%s", code, stdout)
	}
	if want := "doctor: the Secrets some Stacks name were not checked: you may not get Secrets in " + ns + " (RBAC)\n"; strings.Count(stderr, want) != 1 {
		t.Errorf("stderr does not say once %q:\n%s", want, stderr)
	}
}
