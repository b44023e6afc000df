package diff

import (
	"strings"
	"testing"
	"time"
)

func configMap(ns, name string, data map[string]any) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name, "namespace": ns}, "data": data}
}

func TestObjectsSortedWithTotals(t *testing.T) {
	pairs := []Pair{
		{Live: deployment("web", 2, "nginx:1"), Desired: deployment("web", 2, "nginx:2")},
		{Desired: configMap("shop", "new", map[string]any{"a": "1"})},
		{Live: configMap("shop", "gone", map[string]any{"a": "1", "b": "2"})},
		{Live: configMap("admin", "same", map[string]any{"a": "1"}), Desired: configMap("admin", "same", map[string]any{"a": "1"})},
	}
	r, err := Objects(pairs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, o := range r.Objects {
		order = append(order, o.Key.String()+" "+o.Change.String())
	}
	want := []string{
		"ConfigMap/admin/same unchanged",
		"ConfigMap/shop/gone removed",
		"ConfigMap/shop/new added",
		"apps/Deployment/shop/web modified",
	}
	if strings.Join(order, "\n") != strings.Join(want, "\n") {
		t.Errorf("order:\n%s\nwant:\n%s", strings.Join(order, "\n"), strings.Join(want, "\n"))
	}
	if r.Added != 1 || r.Removed != 1 || r.Modified != 1 || r.Unchanged != 1 {
		t.Errorf("totals %+v", r)
	}
	// added ConfigMap: 7 lines; removed one: 8 lines; the image line: 1 each way.
	if r.Inserted != 8 || r.Deleted != 9 {
		t.Errorf("lines +%d -%d, want +8 -9", r.Inserted, r.Deleted)
	}

	var out strings.Builder
	if err := r.WriteUnified(&out, 1); err != nil {
		t.Fatal(err)
	}
	wantOut := `--- live/ConfigMap/shop/gone
+++ desired/ConfigMap/shop/gone
@@ -1,8 +0,0 @@
-apiVersion: v1
-data:
-  a: "1"
-  b: "2"
-kind: ConfigMap
-metadata:
-  name: gone
-  namespace: shop
--- live/ConfigMap/shop/new
+++ desired/ConfigMap/shop/new
@@ -0,0 +1,7 @@
+apiVersion: v1
+data:
+  a: "1"
+kind: ConfigMap
+metadata:
+  name: new
+  namespace: shop
--- live/apps/Deployment/shop/web
+++ desired/apps/Deployment/shop/web
@@ -10,3 +10,3 @@
       containers:
-      - image: nginx:1
+      - image: nginx:2
         name: web
`
	if out.String() != wantOut {
		t.Errorf("unified:\n%s\nwant:\n%s", out.String(), wantOut)
	}
}

func TestOnlyKeepsOneObjectWithItsCounts(t *testing.T) {
	r, err := Objects([]Pair{
		{Live: deployment("web", 2, "nginx:1"), Desired: deployment("web", 2, "nginx:2")},
		{Desired: configMap("shop", "new", map[string]any{"a": "1"})},
	}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	one := r.Only(ObjectKey{Group: "apps", Kind: "Deployment", Namespace: "shop", Name: "web"})
	if len(one.Objects) != 1 || one.Modified != 1 || one.Added != 0 || one.Inserted != 1 || one.Deleted != 1 {
		t.Errorf("only the deployment: %+v", one)
	}
	if len(r.Objects) != 2 {
		t.Error("the report itself must stay whole")
	}
	if none := r.Only(ObjectKey{Kind: "Secret", Namespace: "shop", Name: "x"}); len(none.Objects) != 0 || none.Unchanged != 0 {
		t.Errorf("an object not in the report: %+v", none)
	}
}

func TestObjectNeedsASide(t *testing.T) {
	if _, err := Object(Pair{Key: ObjectKey{Kind: "X", Name: "x"}}, Options{}); err == nil {
		t.Error("an empty pair was compared")
	}
	if _, err := Objects([]Pair{{Live: configMap("a", "b", nil)}, {}}, Options{}); err == nil {
		t.Error("Objects accepted an empty pair")
	}
}

func TestObjectTimeoutMarksReportApproximate(t *testing.T) {
	old, new := bigManifest(5000, 100)
	// A list prints one item a line, which gives the line diff work.
	live := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "big"},
		"data": map[string]any{"lines": toList(old)}}
	desired := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "big"},
		"data": map[string]any{"lines": toList(new)}}
	r, err := Objects([]Pair{{Live: live, Desired: desired}}, Options{Timeout: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Approximate || !r.Objects[0].Text.Approximate {
		t.Fatal("a diff cut short by its time bound is not marked approximate")
	}
	var out strings.Builder
	if err := r.WriteUnified(&out, 3); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), approximateNote+"--- live/ConfigMap/big\n") {
		t.Errorf("unified output does not start with the note: %.200s", out.String())
	}
}

func toList(text string) []any {
	var out []any
	for _, l := range strings.SplitAfter(text, "\n") {
		if l != "" {
			out = append(out, strings.TrimSuffix(l, "\n"))
		}
	}
	return out
}
