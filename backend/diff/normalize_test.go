package diff

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

func loadLive(t testing.TB) map[string]any {
	t.Helper()
	data, err := os.ReadFile("testdata/deployment-live.json")
	if err != nil {
		t.Fatal(err)
	}
	objs, err := Parse(data)
	if err != nil || len(objs) != 1 {
		t.Fatalf("parse fixture: %v (%d objects)", err, len(objs))
	}
	return objs[0]
}

func TestNormaliseLiveDeployment(t *testing.T) {
	out, err := YAML(loadLive(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{"managedFields", "status:", "resourceVersion", "uid:", "generation:",
		"creationTimestamp", "last-applied-configuration", "readyReplicas"} {
		if strings.Contains(out, gone) {
			t.Errorf("normalised YAML still holds %q", gone)
		}
	}
	for _, kept := range []string{"deployment.kubernetes.io/revision: \"17\"", "replicas: 3", "image: registry.example.com/shop/checkout:v2.14.3"} {
		if !strings.Contains(out, kept) {
			t.Errorf("normalised YAML lost %q", kept)
		}
	}
	withStatus, err := YAML(loadLive(t), Options{KeepStatus: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(withStatus, "\nstatus:\n") || !strings.Contains(withStatus, "readyReplicas: 3") {
		t.Error("KeepStatus dropped the status")
	}
}

func TestNormaliseTable(t *testing.T) {
	tests := []struct {
		name string
		in   string
		opts Options
		want string
	}{
		{"keys sorted, server fields and empty maps gone",
			`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c","uid":"u","selfLink":"/x","labels":{},
			  "annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}"}},"data":{"b":"2","a":"1"}}`,
			Options{},
			"apiVersion: v1\ndata:\n  a: \"1\"\n  b: \"2\"\nkind: ConfigMap\nmetadata:\n  name: c\n"},
		{"whole numbers print alike however they were written",
			"apiVersion: v1\nkind: X\nmetadata: {name: x}\nspec: {a: 3.0, b: 3, c: 0.5, d: 9007199254740993}\n",
			Options{},
			"apiVersion: v1\nkind: X\nmetadata:\n  name: x\nspec:\n  a: 3\n  b: 3\n  c: 0.5\n  d: 9007199254740993\n"},
		{"values that are not Kubernetes objects keep every field",
			`{"status":"ok","metadata":{"uid":"u"}}`,
			Options{},
			"metadata:\n  uid: u\nstatus: ok\n"},
		{"status kept on request, other annotations kept",
			`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","annotations":{"a":"b"}},"status":{"phase":"Running"}}`,
			Options{KeepStatus: true},
			"apiVersion: v1\nkind: Pod\nmetadata:\n  annotations:\n    a: b\n  name: p\nstatus:\n  phase: Running\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			got, err := YAML(objs[0], tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestObjectDoesNotModifyItsInputs(t *testing.T) {
	live := loadLive(t)
	desired := loadLive(t)
	desired["kind"] = "Secret"
	desired["apiVersion"] = "v1"
	desired["stringData"] = map[string]any{"k": "v"}
	before, _ := json.Marshal([]any{live, desired})
	if _, err := Object(Pair{Live: live, Desired: desired}, Options{SecretFields: []string{"spec.replicas"}}); err != nil {
		t.Fatal(err)
	}
	after, _ := json.Marshal([]any{live, desired})
	if string(before) != string(after) {
		t.Error("Object changed its inputs")
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		names []string
	}{
		{"JSON object", `{"kind":"A","metadata":{"name":"a"}}`, []string{"a"}},
		{"YAML stream with empty documents", "---\nkind: A\nmetadata: {name: a}\n---\n# only a comment\n---\nkind: B\nmetadata: {name: b}\n", []string{"a", "b"}},
		{"List", `{"apiVersion":"v1","kind":"List","items":[{"kind":"A","metadata":{"name":"a"}},{"kind":"B","metadata":{"name":"b"}}]}`, []string{"a", "b"}},
		{"typed list", "apiVersion: v1\nkind: ConfigMapList\nitems:\n- kind: ConfigMap\n  metadata: {name: c}\n", []string{"c"}},
		{"nothing", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, o := range objs {
				names = append(names, KeyOf(o).Name)
			}
			if !reflect.DeepEqual(names, tt.names) {
				t.Errorf("names %v, want %v", names, tt.names)
			}
		})
	}
	if _, err := Parse([]byte("kind: [unclosed\n")); err == nil {
		t.Error("bad YAML accepted")
	}
}

// The YAML must stay exactly what kubectl and sigs.k8s.io/yaml print.
func TestYAMLMatchesKubernetesYAML(t *testing.T) {
	for _, keepStatus := range []bool{false, true} {
		n, err := normalize(loadLive(t), keepStatus)
		if err != nil {
			t.Fatal(err)
		}
		n["odd"] = map[string]any{"a10": "yes", "a9": "on", "b": 1e20, "c": 0.25, "d": "", "e": []any{},
			"f": map[string]any{}, "g": nil, "h": "multi\nline\n", "i": "\xff bad utf-8", "j": "123", "k": "null"}
		n, _ = normalize(n, keepStatus)
		got, err := toYAML(n)
		if err != nil {
			t.Fatal(err)
		}
		want, err := yaml.Marshal(n)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("toYAML differs from sigs.k8s.io/yaml:\n%s\nwant:\n%s", got, want)
		}
	}
}
