package diff

import (
	"encoding/base64"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func secret(data, stringData map[string]any) map[string]any {
	s := map[string]any{"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
		"metadata": map[string]any{"name": "db", "namespace": "shop"}}
	if data != nil {
		s["data"] = data
	}
	if stringData != nil {
		s["stringData"] = stringData
	}
	return s
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func TestSecretMasks(t *testing.T) {
	tests := []struct {
		name          string
		live, desired map[string]any
		wantLive      string // the data section of each side's YAML
		wantDesired   string
		wantFields    []FieldChange
	}{
		{"same value, same mask, no change",
			secret(map[string]any{"password": b64("Pa55word!")}, nil),
			secret(map[string]any{"password": b64("Pa55word!")}, nil),
			"data:\n  password: ++++++++\n", "data:\n  password: ++++++++\n", nil},
		{"changed value shows as a changed mask",
			secret(map[string]any{"password": b64("Pa55word!"), "user": b64("app")}, nil),
			secret(map[string]any{"password": b64("N3wPa55word!"), "user": b64("app")}, nil),
			"data:\n  password: ++++++++\n  user: ++++++++\n", "data:\n  password: +++++++++\n  user: ++++++++\n",
			[]FieldChange{{Path: "data.password", Change: Modified, Live: "++++++++", Desired: "+++++++++"}}},
		{"masks do not depend on the value's length",
			secret(map[string]any{"a": b64("x"), "b": b64(strings.Repeat("y", 5000))}, nil),
			secret(map[string]any{"a": b64(strings.Repeat("x", 5000)), "b": b64("z")}, nil),
			"data:\n  a: ++++++++\n  b: ++++++++\n", "data:\n  a: +++++++++\n  b: +++++++++\n",
			[]FieldChange{{Path: "data.a", Change: Modified, Live: "++++++++", Desired: "+++++++++"}, {Path: "data.b", Change: Modified, Live: "++++++++", Desired: "+++++++++"}}},
		{"stringData in the manifest equals the same data on the server",
			secret(map[string]any{"password": b64("Pa55word!")}, nil),
			secret(nil, map[string]any{"password": "Pa55word!"}),
			"data:\n  password: ++++++++\n", "data:\n  password: ++++++++\n", nil},
		{"stringData that differs from the server's data",
			secret(map[string]any{"password": b64("Pa55word!")}, nil),
			secret(map[string]any{"password": b64("Pa55word!")}, map[string]any{"password": "other"}),
			"data:\n  password: ++++++++\n", "data:\n  password: +++++++++\n",
			[]FieldChange{{Path: "data.password", Change: Modified, Live: "++++++++", Desired: "+++++++++"}}},
		{"added key",
			secret(map[string]any{"a": b64("1")}, nil),
			secret(map[string]any{"a": b64("1"), "b": b64("2")}, nil),
			"data:\n  a: ++++++++\n", "data:\n  a: ++++++++\n  b: ++++++++\n",
			[]FieldChange{{Path: "data.b", Change: Added, Desired: "++++++++"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Object(Pair{Live: tt.live, Desired: tt.desired}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := dataSection(d.Live); got != tt.wantLive {
				t.Errorf("live:\n%s\nwant:\n%s", got, tt.wantLive)
			}
			if got := dataSection(d.Desired); got != tt.wantDesired {
				t.Errorf("desired:\n%s\nwant:\n%s", got, tt.wantDesired)
			}
			if !reflect.DeepEqual(d.Fields, tt.wantFields) {
				t.Errorf("fields %v, want %v", d.Fields, tt.wantFields)
			}
			if wantChange := len(tt.wantFields) > 0; d.Text.Changed() != wantChange || (d.Change == Modified) != wantChange {
				t.Errorf("change %v with +%d -%d lines, want changed=%v", d.Change, d.Text.Inserted, d.Text.Deleted, wantChange)
			}
		})
	}
}

func dataSection(yaml string) string {
	i := strings.Index(yaml, "data:\n")
	if i < 0 {
		return ""
	}
	end := strings.Index(yaml[i:], "\nkind:")
	return yaml[i : i+end+1]
}

func TestNoSecretByteInAnyOutput(t *testing.T) {
	const oldValue, newValue, same = "Zq7!kW-old-hunter2", "Xv9?pM-new-swordfish", "Jr4$tB-same-opensesame"
	live := secret(map[string]any{"password": b64(oldValue), "token": b64(same)}, nil)
	live["metadata"].(map[string]any)["annotations"] = map[string]any{
		lastApplied: fmt.Sprintf(`{"apiVersion":"v1","kind":"Secret","stringData":{"password":%q}}`, oldValue),
	}
	desired := secret(nil, map[string]any{"password": newValue, "token": same})
	stackLive := map[string]any{"outputs": map[string]any{
		"dbPassword": oldValue,
		"apiKey":     map[string]any{pulumiSecretSigKey: pulumiSecretSig, "plaintext": `"` + oldValue + `"`},
		"plain":      "[secret]",
	}}
	stackDesired := map[string]any{"outputs": map[string]any{
		"dbPassword": newValue,
		"apiKey":     map[string]any{pulumiSecretSigKey: pulumiSecretSig, "ciphertext": b64(newValue)},
		"plain":      "[secret]",
	}}
	opts := Options{SecretFields: []string{"outputs.dbPassword"}}
	r, err := Objects([]Pair{
		{Live: live, Desired: desired},
		{Key: ObjectKey{Kind: "Stack", Name: "prod"}, Live: stackLive, Desired: stackDesired},
	}, opts)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := r.WriteUnified(&out, -1); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&out, "%+v\n", *r)
	for _, o := range r.Objects {
		fmt.Fprintf(&out, "%+v\n%+v\n", *o, *o.Text)
		for _, h := range o.Text.Hunks(3) {
			fmt.Fprintf(&out, "%+v\n", h.Rows(7))
		}
		for _, obj := range []map[string]any{live, desired, stackLive, stackDesired} {
			y, err := YAML(obj, opts)
			if err != nil {
				t.Fatal(err)
			}
			out.WriteString(y)
		}
	}
	text := out.String()
	for _, v := range []string{oldValue, newValue, same} {
		for _, form := range []string{v, b64(v)} {
			for i := 0; i+6 <= len(form); i++ {
				if strings.Contains(text, form[i:i+6]) {
					t.Fatalf("output contains %q, part of a secret", form[i:i+6])
				}
			}
		}
	}
	// The masks still tell what changed, and only that.
	secretDiff, stackDiff := r.Objects[0], r.Objects[1]
	if !reflect.DeepEqual(pathsOnly(secretDiff.Fields), []FieldChange{{Path: "data.password", Change: Modified}}) {
		t.Errorf("secret fields %v", secretDiff.Fields)
	}
	if !reflect.DeepEqual(pathsOnly(stackDiff.Fields), []FieldChange{{Path: "outputs.dbPassword", Change: Modified}}) {
		t.Errorf("stack fields %v", stackDiff.Fields)
	}
	want := "outputs:\n  apiKey: '[secret]'\n  dbPassword: +++++++++\n  plain: '[secret]'\n"
	if stackDiff.Desired != want {
		t.Errorf("stack desired:\n%s\nwant:\n%s", stackDiff.Desired, want)
	}
}

func TestSecretFieldPaths(t *testing.T) {
	env := func(values ...string) map[string]any {
		var list []any
		for i, v := range values {
			list = append(list, map[string]any{"name": fmt.Sprintf("V%d", i), "value": v})
		}
		return map[string]any{"spec": map[string]any{"env": list, "image": "app:1"}}
	}
	d, err := Object(Pair{Key: ObjectKey{Kind: "Fn", Name: "f"}, Live: env("a1", "b1"), Desired: env("a1", "b2", "c")},
		Options{SecretFields: []string{"spec.env[*].value"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "spec:\n  env:\n  - name: V0\n    value: ++++++++\n  - name: V1\n    value: +++++++++\n  - name: V2\n    value: ++++++++\n  image: app:1\n"
	if d.Desired != want {
		t.Errorf("desired:\n%s\nwant:\n%s", d.Desired, want)
	}
	if _, err := Object(Pair{Live: env("a")}, Options{SecretFields: []string{"spec..x"}}); err == nil {
		t.Error("a malformed secret field path was accepted")
	}
	single, err := YAML(secret(map[string]any{"k": b64("value")}, nil), Options{})
	if err != nil || !strings.Contains(single, "k: ++++++++") {
		t.Errorf("single object not masked: %q %v", single, err)
	}
}
