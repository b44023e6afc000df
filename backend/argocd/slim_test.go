package argocd

import (
	"encoding/json"
	"fmt"
	"github.com/driftdeck/driftdeck/backend/model"
	"reflect"
	"testing"

	"github.com/driftdeck/driftdeck/backend/internal/mutate"
)

// The slim decoder must give Convert exactly what the whole object gives it.
func TestDecodeSlimConvertsLikeTheWholeObject(t *testing.T) {
	whole := loadApp(t, "app-running.json")
	checkSlim(t, whole)
	set(whole, []any{map[string]any{"repoURL": "a", "targetRevision": "v1"}, map[string]any{"repoURL": "b"}}, "spec", "sources")
	set(whole, []any{"r1", "r2"}, "status", "sync", "revisions")
	set(whole, map[string]any{"enabled": false}, "spec", "syncPolicy", "automated")
	checkSlim(t, whole)
	set(whole, []any{map[string]any{"manager": "argocd-application-controller", "operation": "Update", "fieldsType": "FieldsV1",
		"fieldsV1": map[string]any{"f:status": map[string]any{"f:sync": map[string]any{}}}}}, "metadata", "managedFields")
	set(whole, float64(7), "metadata", "generation")
	checkSlim(t, whole)
	delete(whole, "operation")
	delete(whole, "status")
	checkSlim(t, whole)
}

func checkSlim(t *testing.T, whole map[string]any) *model.Unit {
	t.Helper()
	data, err := json.Marshal(whole)
	if err != nil {
		t.Fatal(err)
	}
	var full map[string]any
	if err := json.Unmarshal(data, &full); err != nil {
		t.Fatal(err)
	}
	slim, err := DecodeSlim(data)
	if err != nil {
		t.Fatal(err)
	}
	got, want := Convert("c", slim), Convert("c", full)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("slim decode converts to\n%+v\n%+v\nwhole object converts to\n%+v\n%+v", got, got.Argo, want, want.Argo)
	}
	return got
}

// FuzzDecodeSlim: whenever the slim decoder accepts an object, Convert sees
// the same unit as from the whole object.
func FuzzDecodeSlim(f *testing.F) {
	seed := loadApp(f, "app-running.json")
	f.Add([]byte{0, 1, 2, 3})
	f.Add([]byte{7, 14, 21, 200})
	f.Fuzz(func(t *testing.T, b []byte) {
		obj := mutate.Object(seed, b)
		if data, err := json.Marshal(obj); err == nil {
			slimReadsAsWhole(t, data)
		}
	})
}

// slimReadsAsWhole fails when the slim decoder accepts data and Convert
// then sees another unit than from the whole object. What either refuses
// is left: the caller of the slim decoder then decodes the whole object.
func slimReadsAsWhole(t *testing.T, data []byte) {
	t.Helper()
	var full map[string]any
	if json.Unmarshal(data, &full) != nil {
		return
	}
	slim, err := DecodeSlim(data)
	if err != nil {
		return
	}
	if got, want := Convert("c", slim), Convert("c", full); !reflect.DeepEqual(got, want) {
		t.Fatalf("slim %+v\n%+v\nwhole %+v\n%+v", got, got.Argo, want, want.Argo)
	}
}

// FuzzDecodeSlimReadsStringsAndNumbersAsEncodingJSON: the slim decoder
// reads the text and numbers a server sends (escapes, surrogates, invalid
// UTF-8, any spelling of a number) as encoding/json
// reads them into the whole object, or refuses them. The members' names
// are the API server's own: it never sends them in another case.
func FuzzDecodeSlimReadsStringsAndNumbersAsEncodingJSON(f *testing.F) {
	f.Add("a\\u0000\\ud800b", "Applic\\u0061tion", "\xff\xfe", "1e2")
	f.Add("api-prod-0", "Deployment", "sync \\\"failed\\\"\\n\\t", "-0.0")
	f.Add("\\uD83D\\uDE00", "Application", "\\u001b[31m", "3.5")
	f.Fuzz(func(t *testing.T, name, kind, message, number string) {
		data := []byte(fmt.Sprintf(`{"apiVersion":"argoproj.io/v1alpha1","kind":"Application",
"metadata":{"name":"%[1]s","namespace":"argocd","generation":%[4]s,"labels":{"team":"%[1]s"},"annotations":{"note":"%[3]s"}},
"spec":{"project":"%[1]s","destination":{"namespace":"%[1]s"},"source":{"repoURL":"%[3]s","targetRevision":"%[1]s"}},
"status":{"sync":{"status":"OutOfSync","revision":"%[1]s"},"health":{"status":"%[2]s"},
"conditions":[{"type":"SyncError","message":"%[3]s"}],
"operationState":{"phase":"Running","message":"%[3]s","startedAt":"%[1]s","retryCount":2},
"resources":[{"group":"argoproj.io","kind":"%[2]s","namespace":"argocd","name":"%[1]s","status":"OutOfSync","requiresPruning":true}]}}`,
			name, kind, message, number))
		slimReadsAsWhole(t, data)
	})
}

// A resource entry's kind spelled with escapes, or null, reads as the whole
// object reads it; one that is not a string is refused, so that the watch
// decodes the whole object instead (never a slim object that reads
// otherwise).
func TestSlimResourceKindOfAnyTypeReadsAsTheWholeObject(t *testing.T) {
	for _, c := range []struct {
		kind      string
		slimReads bool
	}{{`"\u0041pplication"`, true}, {`null`, true}, {`-1`, false}, {`{}`, false}} {
		data := []byte(`{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"a","namespace":"argocd"},` +
			`"status":{"resources":[{"group":"argoproj.io","kind":` + c.kind + `,"name":"child","namespace":"argocd","status":"Synced"}]}}`)
		var whole map[string]any
		if err := json.Unmarshal(data, &whole); err != nil {
			t.Fatal(err)
		}
		slim, err := DecodeSlim(data)
		switch {
		case !c.slimReads && err == nil:
			t.Errorf("kind %s: the slim decoder read it; want it refused, for the whole object to be decoded", c.kind)
		case c.slimReads && err != nil:
			t.Errorf("kind %s: the slim decoder refused it: %v", c.kind, err)
		case err == nil:
			if got, want := Convert("c", slim), Convert("c", whole); !reflect.DeepEqual(got, want) {
				t.Errorf("kind %s: slim %+v\nwhole %+v", c.kind, got, want)
			}
		}
	}
}
