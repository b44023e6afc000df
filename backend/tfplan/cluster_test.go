package tfplan

import (
	"context"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/backend/tofu"
)

const planID = "plan-main-1a2b3c4d5e"

// A real OpenTofu plan, stored in the cluster the way tofu-controller stores
// it, reads back per resource exactly as `tofu show` shows that plan, for
// each readable form, chunked or not, and never shows the sensitive value.
func TestClusterTerraformPlanFromTofu(t *testing.T) {
	tf := newTofu(t)
	tf.write("main.tf", config)
	tf.run("init", "-input=false", "-no-color")
	tf.run("apply", "-auto-approve", "-input=false", "-no-color")
	tf.run("plan", "-input=false", "-no-color", "-var", "size=large", "-var", "token="+newSecret, "-out=tfplan")
	human := tf.run("show", "-no-color", "tfplan")
	js := tf.run("show", "-json", "tfplan")
	wantChanges := tofuChanges(t, js)
	wantSummary := tofuSummary(t, string(human))
	if len(wantChanges) != 4 {
		t.Fatalf("the test config should plan 4 changes, tofu planned %v", wantChanges)
	}

	tc := testcluster.Shared(t)
	tc.InstallCRDs(t, testcluster.UpstreamCRDSetsNamed(t, "tofu-controller-v0.16.5")...)
	ns := tc.Namespace(t)
	kc := tc.Kube(t)
	c, err := kube.NewCluster("test", tc.Config(), "default")
	if err != nil {
		t.Fatal(err)
	}
	createTerraform(t, c, ns, "infra", planID)
	r := &Reader{Cluster: func(string) (*kube.Cluster, bool) { return c, true }}
	key := model.Key{Context: "test", Engine: model.EngineTerraform, Namespace: ns, Name: "infra"}

	for _, tt := range []struct {
		name      string
		format    string
		chunkSize int
	}{
		{"human", "human", 1 << 20},
		{"human chunked", "human", 700},
		{"json", "json", 1 << 20},
		{"json chunked", "json", 300},
	} {
		t.Run(tt.name, func(t *testing.T) {
			clearPlans(t, kc, ns)
			storePlan(t, kc, ns, "infra", planID, "", []byte("binary plan"), false, 1<<20)
			if tt.format == "human" {
				storePlan(t, kc, ns, "infra", planID, "", human, true, tt.chunkSize)
			} else {
				storePlan(t, kc, ns, "infra", planID, JSONSuffix, js, false, tt.chunkSize)
			}
			p, err := r.Read(context.Background(), key)
			if err != nil {
				t.Fatal(err)
			}
			if p.Format != tt.format || p.ID != planID || p.Pending != planID {
				t.Fatalf("read a %s plan %q (pending %q), want the %s plan %s", p.Format, p.ID, p.Pending, tt.format, planID)
			}
			if len(p.Warnings) != 0 {
				t.Errorf("warnings for the pending plan: %v", p.Warnings)
			}
			if chunked := strings.Contains(p.Where, "chunks"); chunked != (tt.chunkSize < 1<<20) {
				t.Errorf("read from %s", p.Where)
			}
			var got []string
			for _, res := range p.Resources {
				if res.Address != OutputsAddress {
					got = append(got, res.Address+" "+string(res.Action))
				}
			}
			if !slices.Equal(got, wantChanges) {
				t.Errorf("resources %v, tofu show -json plans %v", got, wantChanges)
			}
			if p.Summary != wantSummary || !p.Changes() {
				t.Errorf("summary %q, tofu show says %q", p.Summary, wantSummary)
			}
			checkServer(t, p)
			checkSensitive(t, p)
			if out := find(p, OutputsAddress); out == nil || !strings.Contains(out.Diff.Live, "small") || !strings.Contains(out.Diff.Desired, "large") {
				t.Errorf("the output change size small -> large is not shown: %+v", out)
			}
			rep := p.Report
			if rep.Added != 0 || rep.Removed != 1 || rep.Modified != 4 {
				t.Errorf("report counts %d added, %d removed, %d modified; want 0, 1 (gone[0]), 4 (server, cred, replaced, outputs)", rep.Added, rep.Removed, rep.Modified)
			}
		})
	}

	t.Run("a newer pending plan than the one stored", func(t *testing.T) {
		setPending(t, c, ns, "infra", "plan-main-9f8e7d6c5b")
		defer setPending(t, c, ns, "infra", planID)
		p, err := r.Read(context.Background(), key)
		if err != nil {
			t.Fatal(err)
		}
		if p.ID != planID || len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], "plan-main-9f8e7d6c5b") {
			t.Errorf("plan %s with warnings %v: want the stored plan's id and a warning naming the pending one", p.ID, p.Warnings)
		}
	})

	t.Run("a name too long for a label with .json", func(t *testing.T) {
		clearPlans(t, kc, ns)
		createTerraform(t, c, ns, longName, planID)
		storePlan(t, kc, ns, longName, planID, "", []byte("binary plan"), false, 1<<20)
		storePlan(t, kc, ns, longName, planID, JSONSuffix, js, false, 300)
		p, err := r.Read(context.Background(), model.Key{Context: "test", Engine: model.EngineTerraform, Namespace: ns, Name: longName})
		if err != nil {
			t.Fatal(err)
		}
		if p.Format != "json" || p.ID != planID || !strings.Contains(p.Where, "chunks") {
			t.Fatalf("read a %s plan %q from %s, want the chunked json plan %s", p.Format, p.ID, p.Where, planID)
		}
		if n := len(p.Resources); n != len(wantChanges)+1 {
			t.Errorf("%d resources read, tofu planned %d changes and the outputs", n, len(wantChanges))
		}
	})

	t.Run("nothing readable stored", func(t *testing.T) {
		clearPlans(t, kc, ns)
		storePlan(t, kc, ns, "infra", planID, "", []byte("binary plan"), false, 1<<20)
		_, err := r.Read(context.Background(), key)
		if err == nil || !strings.Contains(err.Error(), "storeReadablePlan") {
			t.Errorf("err = %v, want one that says to set storeReadablePlan", err)
		}
	})
}

// checkServer: the in-place update of terraform_data.server shows the old
// and the new size, as tofu does.
func checkServer(t *testing.T, p *Plan) {
	t.Helper()
	s := find(p, "terraform_data.server")
	if s == nil {
		t.Fatal("terraform_data.server is not in the plan")
	}
	if s.Diff.Change != diff.Modified || !strings.Contains(s.Header, "updated in-place") {
		t.Errorf("server: %v %q", s.Diff.Change, s.Header)
	}
	var removed, added []string
	for _, l := range s.Diff.Text.Lines {
		switch l.Op {
		case diff.Delete:
			removed = append(removed, l.Text)
		case diff.Insert:
			added = append(added, l.Text)
		}
	}
	if !anyContains(removed, "small") || !anyContains(added, "large") || anyContains(added, "small") {
		t.Errorf("server's diff removes %q and adds %q; want size small -> large", removed, added)
	}
	if !anyContains(added, KnownAfterApply) {
		t.Errorf("server's output should become %s: added %q", KnownAfterApply, added)
	}
}

// checkSensitive: the new token appears nowhere; its change is still told.
func checkSensitive(t *testing.T, p *Plan) {
	t.Helper()
	for _, res := range p.Resources {
		if strings.Contains(res.Diff.Live+res.Diff.Desired, newSecret) {
			t.Errorf("%s shows the sensitive value:\n%s", res.Address, res.Diff.Desired)
		}
	}
	cred := find(p, "terraform_data.cred")
	if cred == nil || !strings.Contains(cred.Diff.Desired, SensitiveChanged) || cred.Diff.Change != diff.Modified {
		t.Errorf("cred's masked change is not shown: %+v", cred)
	}
}

func find(p *Plan, address string) *Resource {
	for i := range p.Resources {
		if p.Resources[i].Address == address {
			return &p.Resources[i]
		}
	}
	return nil
}

func anyContains(lines []string, s string) bool {
	for _, l := range lines {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

func createTerraform(t *testing.T, c *kube.Cluster, ns, name, pending string) {
	t.Helper()
	ctx := context.Background()
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "infra.contrib.fluxcd.io/v1alpha2", "kind": "Terraform",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec": map[string]any{
			"interval": "10m", "path": "./", "storeReadablePlan": "human",
			"sourceRef": map[string]any{"kind": "GitRepository", "name": "infra"},
		},
	}}
	ri := c.Dynamic.Resource(tofu.Terraforms[0]).Namespace(ns)
	created, err := ri.Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created.Object["status"] = map[string]any{"plan": map[string]any{"pending": pending}, "lastPlannedGeneration": created.GetGeneration()}
	if _, err := ri.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func setPending(t *testing.T, c *kube.Cluster, ns, name, pending string) {
	t.Helper()
	ri := c.Dynamic.Resource(tofu.Terraforms[0]).Namespace(ns)
	cur, err := ri.Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedField(cur.Object, pending, "status", "plan", "pending"); err != nil {
		t.Fatal(err)
	}
	if _, err := ri.UpdateStatus(context.Background(), cur, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}
