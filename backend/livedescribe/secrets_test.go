package livedescribe

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/driftdeck/driftdeck/backend/demo"
	"github.com/driftdeck/driftdeck/backend/engines"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
)

// Values a Stack carries in clear in the fields the operator reads as
// secrets: a literal passphrase, the deprecated plaintext secrets map, a
// literal secret config value, and all of them again in kubectl's
// last-applied annotation.
const (
	plantedPassphrase = "PLANTED-passphrase-5e1f"
	plantedSecret     = "PLANTED-db-password-77aa"
	plantedLiteral    = "PLANTED-api-key-0c3d"
	plantedToken      = "PLANTED-access-token-b9"
)

func TestTheYAMLOfAStackShowsNoSecretItCarries(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := demo.Start(ctx, demo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	spec := map[string]any{
		"stack": "org/db/prod", "projectRepo": "https://git.example.com/db.git", "branch": "main",
		"config":  map[string]any{"aws:region": "eu-west-1"},
		"secrets": map[string]any{"dbPassword": plantedSecret},
		"envRefs": map[string]any{
			"PULUMI_CONFIG_PASSPHRASE": map[string]any{"type": "Literal", "literal": map[string]any{"value": plantedPassphrase}},
			"PULUMI_ACCESS_TOKEN":      map[string]any{"type": "Literal", "literal": map[string]any{"value": plantedToken}},
			"AWS_PROFILE":              map[string]any{"type": "Env", "env": map[string]any{"name": "AWS_PROFILE"}},
		},
		"secretsRef": map[string]any{"apiKey": map[string]any{"type": "Literal", "literal": map[string]any{"value": plantedLiteral}}},
	}
	applied, _ := json.Marshal(map[string]any{"apiVersion": "pulumi.com/v1", "kind": "Stack", "metadata": map[string]any{"name": "db", "namespace": "infra"}, "spec": spec})
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "pulumi.com/v1", "kind": "Stack",
		"metadata": map[string]any{"name": "db", "namespace": "infra",
			"annotations": map[string]any{"kubectl.kubernetes.io/last-applied-configuration": string(applied)}},
		"spec": spec,
	}}
	gvr, _ := engines.Resource(model.EnginePulumi)
	if _, err := c.Dynamic.Resource(gvr).Namespace("infra").Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	d := &Describer{Cluster: func(string) (*kube.Cluster, bool) { return c, true }}
	det, err := d.Describe(ctx, model.Key{Context: c.Context, Engine: model.EnginePulumi, Namespace: "infra", Name: "db"})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{plantedPassphrase, plantedSecret, plantedLiteral, plantedToken} {
		if strings.Contains(det.YAML, v) {
			t.Errorf("the Stack's YAML shows the secret %q:\n%s", v, det.YAML)
		}
	}
	// What is not secret stays readable, and the secrets are named.
	for _, want := range []string{"aws:region: eu-west-1", "dbPassword: '[hidden]'", "PULUMI_CONFIG_PASSPHRASE:", "name: AWS_PROFILE", "apiKey:"} {
		if !strings.Contains(det.YAML, want) {
			t.Errorf("the Stack's YAML lacks %q:\n%s", want, det.YAML)
		}
	}
}
