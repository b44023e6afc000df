package demo_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/tfplan"
)

// The demo stores the readable plans of its Terraforms with a plan as
// tofu-controller does, so the plan reader shows each per resource under
// the pending id; approving the shown id through the write path has the
// simulated controller apply it.
func TestDemoTerraformPlanIsReadableAndApprovingItApplies(t *testing.T) {
	c, f, _, _ := startDemo(t)
	ctx := context.Background()
	clusters := func(string) (*kube.Cluster, bool) { return c, true }
	units := unitsByRef(f)
	for ref, want := range map[string]struct {
		summary   string
		resources []string
		warning   string
	}{
		"terraform/flux-system/eks-cluster": {"Plan: 2 to add, 1 to change, 1 to destroy.",
			[]string{`aws_eks_addon.vpc_cni`, `aws_eks_node_group.general["c"]`, `aws_iam_role_policy_attachment.node_ssm`, `aws_security_group_rule.legacy_ssh`}, ""},
		"terraform/flux-system/vpc-network": {"Plan: 3 to add, 1 to change, 0 to destroy.", []string{`aws_vpc.main`}, "the plan is stale"},
		"terraform/flux-system/dns-records": {"Plan: 2 to add, 0 to change, 0 to destroy.", []string{`aws_route53_record.api`, `aws_route53_record.status`}, ""},
	} {
		u := units[ref]
		p, err := (&tfplan.Reader{Cluster: clusters}).Read(ctx, u.Key)
		if err != nil {
			t.Fatalf("%s: %v", ref, err)
		}
		if p.ID != u.Tofu.PendingPlan || p.Pending != u.Tofu.PendingPlan || p.Format != "human" || p.Summary != want.summary {
			t.Errorf("%s: plan %q (pending %q) %s %q, want the pending %q with %q", ref, p.ID, p.Pending, p.Format, p.Summary, u.Tofu.PendingPlan, want.summary)
		}
		var addresses []string
		for _, r := range p.Resources {
			addresses = append(addresses, r.Address)
		}
		for _, a := range want.resources {
			if !strings.Contains(strings.Join(addresses, " "), a) {
				t.Errorf("%s: the plan lacks %s: %v", ref, a, addresses)
			}
		}
		if w := strings.Join(p.Warnings, "; "); (want.warning == "") != (w == "") || !strings.Contains(w, want.warning) {
			t.Errorf("%s: warnings %q, want %q", ref, w, want.warning)
		}
	}

	eks := units["terraform/flux-system/eks-cluster"]
	p, err := (&tfplan.Reader{Cluster: clusters}).Read(ctx, eks.Key)
	if err != nil {
		t.Fatal(err)
	}
	ex := &actions.Executor{Cluster: clusters}
	req := actions.Request{Kind: actions.Approve, Key: eks.Key, Revision: p.ID, Reason: "INC-12 reviewed the plan"}
	plan, err := ex.Plan(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ex.Send(ctx, plan); err != nil {
		t.Fatal(err)
	}
	var tf *model.Unit
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if tf = unitsByRef(f)[eks.Key.Ref()]; tf.Tofu.LastAppliedPlan == p.ID {
			break
		}
	}
	if tf.Tofu.LastAppliedPlan != p.ID || tf.Tofu.PendingPlan != "" || tf.Run != model.Idle || tf.Sync != model.InSync {
		t.Errorf("the approved plan %s was not applied: %+v, run %s (%s), sync %s", p.ID, tf.Tofu, tf.Run, tf.RunReason, tf.Sync)
	}
}
