package tfplan

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/backend/tofu"
)

// Drift detection keeps no plan file: tofu-controller puts `tofu show
// -no-color` of its drift plan in the Ready condition (DriftDetected). That
// text, made by the real OpenTofu and stored on the real API server, reads
// resource by resource, with the why line naming tofu's count and the
// resources, and a warning that nothing waits for approval.
func TestClusterTerraformDriftResultPerResource(t *testing.T) {
	tf := newTofu(t)
	tf.write("main.tf", config)
	tf.run("init", "-input=false", "-no-color")
	tf.run("apply", "-auto-approve", "-input=false", "-no-color")
	tf.run("plan", "-input=false", "-no-color", "-var", "size=large", "-var", "token="+newSecret, "-out=tfdrift")
	raw := string(tf.run("show", "-no-color", "tfdrift"))
	wantChanges := tofuChanges(t, tf.run("show", "-json", "tfdrift"))

	tc := testcluster.Shared(t)
	tc.InstallCRDs(t, testcluster.UpstreamCRDSetsNamed(t, "tofu-controller-v0.16.5")...)
	ns := tc.Namespace(t)
	c, err := kube.NewCluster("test", tc.Config(), "default")
	if err != nil {
		t.Fatal(err)
	}
	createTerraform(t, c, ns, "iam", "")
	ri := c.Dynamic.Resource(tofu.Terraforms[0]).Namespace(ns)
	cur, err := ri.Get(context.Background(), "iam", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	detected := time.Now().UTC().Truncate(time.Second)
	cur.Object["status"] = map[string]any{"lastDriftDetectedAt": detected.Format(time.RFC3339), "conditions": []any{map[string]any{
		"type": "Ready", "status": "False", "reason": tofu.ReasonDriftDetected, "message": raw,
		"lastTransitionTime": detected.Format(time.RFC3339),
	}}}
	if cur, err = ri.UpdateStatus(context.Background(), cur, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	u := tofu.Convert("test", cur.Object)
	if !strings.HasPrefix(u.RunReason, "drift detected: "+tofuSummary(t, raw)+" terraform_data.") {
		t.Errorf("why %q; want tofu's count and the resources", u.RunReason)
	}
	r := &Reader{Cluster: func(string) (*kube.Cluster, bool) { return c, true }}
	p, err := r.Read(context.Background(), model.Key{Context: "test", Engine: model.EngineTerraform, Namespace: ns, Name: "iam"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, res := range p.Resources {
		if res.Address != OutputsAddress {
			got = append(got, res.Address+" "+string(res.Action))
		}
	}
	if strings.Join(got, ",") != strings.Join(wantChanges, ",") {
		t.Errorf("drift result %v; tofu planned %v", got, wantChanges)
	}
	if !anyContains(p.Warnings, "drift detection's plan, which tofu-controller does not keep") || !anyContains(p.Warnings, detected.Format(time.RFC3339)) {
		t.Errorf("warnings %q; want it said that this is drift detection's result, and when", p.Warnings)
	}
	checkServer(t, p)
	checkSensitive(t, p)
}
