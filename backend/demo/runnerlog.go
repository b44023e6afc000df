package demo

// The runner pod tofu-controller started for vpc-network's run, with the
// log of the plan it made. Named, labelled and logged as the controller's
// runner.

const (
	runnerPod       = tfStale + "-tf-runner"
	runnerContainer = "tf-runner"
)

// runnerPodObject is vpc-network's runner pod.
func (e *estate) runnerPodObject() map[string]any {
	pod := e.object("v1", "Pod", fluxNS, runnerPod, nil, map[string]any{
		"spec": map[string]any{"containers": []any{map[string]any{"name": runnerContainer}}},
		"status": map[string]any{"phase": "Running", "conditions": []any{map[string]any{"type": "Ready", "status": "True"}},
			"containerStatuses": []any{map[string]any{"name": runnerContainer, "ready": true, "state": map[string]any{"running": map[string]any{}}}}},
	})
	pod["metadata"].(map[string]any)["labels"] = map[string]any{
		"app.kubernetes.io/created-by": "tf-controller", "app.kubernetes.io/name": "tf-runner", "infra.contrib.fluxcd.io/terraform": tfStale,
	}
	return pod
}

// runnerLog: the controller asked the runner to plan, and the plan is
// saved. Nothing more comes: a followed log ends, so a script following
// it (the README's example) is not left waiting.
func runnerLog() podLog {
	return podLog{history: []string{
		`{"level":"info","msg":"Starting the runner...","version":"v0.16.0-rc.5"}`,
		`{"level":"info","msg":"initializing","instance-id":"vpc-network-6f1c"}`,
		"Initializing the backend...",
		"Successfully configured the backend \"kubernetes\"! OpenTofu will automatically use this backend unless the backend configuration changes.",
		"Initializing provider plugins...",
		"- Reusing previous version of hashicorp/aws from the dependency lock file",
		"OpenTofu has been successfully initialized!",
		`{"level":"info","msg":"creating new plan","generation":6}`,
		"aws_vpc.main: Refreshing state... [id=vpc-0a1b2c3d4e5f60718]",
		"aws_subnet.private[0]: Refreshing state... [id=subnet-04c1d2e3f4a5b6c70]",
		"aws_subnet.private[1]: Refreshing state... [id=subnet-0d9e8f7a6b5c4d3e2]",
		"aws_nat_gateway.main: Refreshing state... [id=nat-0123456789abcdef0]",
		"OpenTofu will perform the following actions:",
		"  # aws_subnet.private[2] will be created",
		"  ~ resource \"aws_vpc\" \"main\" {",
		"      ~ tags = { \"cost-center\" = \"net-01\" -> \"net-02\" }",
		"Plan: 1 to add, 1 to change, 0 to destroy.",
		`{"level":"info","msg":"plan saved","plan":"plan-main-c5c8f21"}`,
	}}
}
