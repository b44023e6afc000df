package e2e

import (
	"strings"
	"testing"
)

// eksRow is the list's row of the demo's eks-cluster.
func eksRow(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if strings.Contains(line, "flux-system/eks-cluster") {
			return line
		}
	}
	return ""
}

// d on the demo's Terraform waiting for approval shows the plan
// tofu-controller stored, per resource, under its full id; A there
// approves exactly that plan and the simulated controller applies it.
func TestDemoTerraformPlanDiffAndApprove(t *testing.T) {
	term := start(t, 140, 45, nil, "--demo")
	term.waitFor(startup, "DEMO", "NAMESPACE/NAME")
	term.send(":terraform\r")
	term.waitFor(promptly, ":terraform", "tofu tf flux-system/eks-cluster")
	term.send("/eks-cluster\r")
	term.waitUntil(promptly, "the filter to leave only eks-cluster", func(s string) bool {
		return strings.Contains(s, "flux-system/eks-cluster") && strings.Count(s, "tofu tf ") == 1
	})
	term.send("d")
	s := term.waitFor(promptly, "Diff  revision plan-main-", "aws_eks_node_group.general", "Plan: 2 to add, 1 to change, 1 to destroy.")
	id := ""
	for _, f := range strings.Fields(s) {
		if strings.HasPrefix(f, "plan-main-") {
			id = f
		}
	}
	if len(id) != len("plan-main-")+10 {
		t.Fatalf("the plan is not shown under its full id (%q):\n%s", id, s)
	}
	for _, r := range []string{"aws_eks_addon.vpc_cni", "aws_iam_role_policy_attachment.node_ssm", "aws_security_group_rule.legacy_ssh"} {
		if !strings.Contains(s, r) {
			t.Errorf("the plan lacks %s:\n%s", r, s)
		}
	}

	term.send("A")
	term.waitFor(promptly, id, "Reason:")
	term.send("INC-12 plan reviewed")
	term.send("\r")
	term.waitFor(promptly, " No ", " Yes ")
	term.send("y")
	// The diff follows the unit: the plan is applied, none is pending.
	term.waitFor(promptly, "no plan is pending")
	term.send("\x1b")
	term.waitUntil(promptly, "eks-cluster to read applied: in sync and idle", func(s string) bool {
		row := eksRow(s)
		return strings.Contains(row, "in sync") && strings.Contains(row, " idle ")
	})
	term.send("q")
	if code := term.exit(promptly); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}
