package pulumiop

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/driftdeck/driftdeck/backend/model"
)

// A Stack's Secrets are read where the operator reads them: envRefs and
// secretsRef entries of type Secret (in the Stack's namespace unless one
// is named), envSecrets whole, accessTokenSecret's accessToken; and a
// passphrase, token or credential given as a literal is named, by field,
// never by value.
func TestTheSecretsAStackReadsAndTheOnesItsSpecHolds(t *testing.T) {
	obj := loadStack(t)
	var spec map[string]any
	_ = json.Unmarshal([]byte(`{
		"envRefs": {
			"PULUMI_CONFIG_PASSPHRASE": {"type": "Literal", "literal": {"value": "hunter2"}},
			"AWS_SECRET_ACCESS_KEY": {"type": "Secret", "secret": {"name": "aws", "key": "secret"}},
			"PULUMI_ACCESS_TOKEN": {"type": "Secret", "secret": {"namespace": "shared", "name": "pulumi", "key": "token"}},
			"AWS_REGION": {"type": "Literal", "literal": {"value": "eu-west-1"}},
			"HOME_DIR": {"type": "Env", "env": {"name": "HOME"}}
		},
		"secretsRef": {
			"dbPassword": {"type": "Secret", "secret": {"name": "db", "key": "password"}},
			"apiKey": {"type": "Literal", "literal": {"value": "k-123"}}
		},
		"envSecrets": ["legacy-env"],
		"accessTokenSecret": "legacy-token"
	}`), &spec)
	for k, v := range spec {
		at(obj, "spec")[k] = v
	}
	u := Convert("c", obj)
	ns := u.Key.Namespace
	want := []model.SecretRef{
		{Field: "envRefs.AWS_SECRET_ACCESS_KEY", Namespace: ns, Name: "aws", Key: "secret"},
		{Field: "envRefs.PULUMI_ACCESS_TOKEN", Namespace: "shared", Name: "pulumi", Key: "token"},
		{Field: "secretsRef.dbPassword", Namespace: ns, Name: "db", Key: "password"},
		{Field: "envSecrets[0]", Namespace: ns, Name: "legacy-env"},
		{Field: "accessTokenSecret", Namespace: ns, Name: "legacy-token", Key: "accessToken"},
	}
	if !reflect.DeepEqual(u.Stack.SecretRefs, want) {
		t.Errorf("SecretRefs =\n%+v\nwant\n%+v", u.Stack.SecretRefs, want)
	}
	if lit := []string{"envRefs.PULUMI_CONFIG_PASSPHRASE", "secretsRef.apiKey"}; !reflect.DeepEqual(u.Stack.Literals, lit) {
		t.Errorf("Literals = %v, want %v", u.Stack.Literals, lit)
	}
	if len(u.ReadErrors) > 0 {
		t.Errorf("read errors: %v", u.ReadErrors)
	}
}

// destroyOnFinalize is read: deleting such a Stack destroys what it manages.
func TestAStackThatDestroysOnDeleteSaysSo(t *testing.T) {
	obj := loadStack(t)
	if Convert("c", obj).Stack.DestroyOnFinalize {
		t.Fatal("a Stack without destroyOnFinalize reads as destroying on delete")
	}
	at(obj, "spec")["destroyOnFinalize"] = true
	if !Convert("c", obj).Stack.DestroyOnFinalize {
		t.Error("destroyOnFinalize: true is not read")
	}
}
