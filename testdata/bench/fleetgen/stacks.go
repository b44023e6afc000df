package fleetgen

import (
	"fmt"
	"time"
)

// StackState is the state a Stack is generated in.
type StackState string

// The Stack states of the mix, with their share of every 100.
const (
	StackReady    StackState = "ready"    // 85: last update succeeded
	StackRunning  StackState = "running"  // 7: an Update in progress
	StackRetrying StackState = "retrying" // 5: last update failed, the operator retries
	StackStalled  StackState = "stalled"  // 3: failed 3 times, Stalled
)

// StateOfStack is the state Stack i is generated in.
func StateOfStack(i int) StackState {
	switch m := i % 100; {
	case m < 85:
		return StackReady
	case m < 92:
		return StackRunning
	case m < 97:
		return StackRetrying
	}
	return StackStalled
}

var projects = []string{"network", "cluster", "database", "dns", "iam", "buckets", "queues", "cdn", "vault", "observability"}

// StackNamespaceOf is the namespace of Stack i.
func StackNamespaceOf(i int) string { return "team-" + teams[i%len(teams)] }

// Stack returns Stack i of the Pulumi operator v2 (pulumi.com/v1) with its
// status, and the auto.pulumi.com Update its status names (the last one, or
// the one in progress), with that Update's status. Status is a subresource
// of both: create the objects, then write the statuses.
func Stack(i int, now time.Time) (stack, stackStatus, update, updateStatus map[string]any) {
	r := rng(fmt.Sprint("stack", i))
	project, env := pick(r, projects), pick(r, envs)
	name := fmt.Sprintf("%s-%s-%s-%04d", teams[i%len(teams)], project, env, i)
	ns := StackNamespaceOf(i)
	state := StateOfStack(i)
	head := commit(name, "head")
	applied := head
	if state != StackReady {
		applied = commit(name, "previous")
	}
	spec := map[string]any{
		"stack":                  fmt.Sprintf("acme/%s/%s-%04d", project, env, i),
		"projectRepo":            "https://github.com/acme/infrastructure.git",
		"repoDir":                "stacks/" + project,
		"refresh":                true,
		"destroyOnFinalize":      false,
		"resyncFrequencySeconds": int64(300),
		"serviceAccountName":     "pulumi",
		"envRefs": map[string]any{
			"PULUMI_ACCESS_TOKEN": map[string]any{"type": "Secret", "secret": map[string]any{"name": "pulumi-api-secret", "key": "accessToken"}},
			"AWS_REGION":          map[string]any{"type": "Literal", "literal": map[string]any{"value": "eu-west-1"}},
		},
		"config": map[string]any{"aws:region": "eu-west-1", project + ":environment": env, project + ":owner": "team-" + teams[i%len(teams)]},
	}
	if i%3 == 0 {
		spec["commit"] = head // pinned: approvals move it
	} else {
		spec["branch"] = "main"
	}
	stack = map[string]any{
		"apiVersion": "pulumi.com/v1",
		"kind":       "Stack",
		"metadata": map[string]any{
			"name": name, "namespace": ns,
			"finalizers": []any{"finalizer.stack.pulumi.com"},
			"labels":     map[string]any{"team": teams[i%len(teams)], "env": env, "app.kubernetes.io/managed-by": "pulumi-kubernetes-operator"},
		},
		"spec": spec,
	}

	ranAt := now.Add(-time.Duration(10+r.IntN(3000)) * time.Minute)
	updName := fmt.Sprintf("%s-%x", name, ranAt.UnixMilli())
	permalink := fmt.Sprintf("https://app.pulumi.com/acme/%s/%s-%04d/updates/%d", project, env, i, 20+r.IntN(400))
	last := map[string]any{
		"generation": int64(1), "reconcileRequest": "", "name": updName, "type": "up",
		"state": "succeeded", "lastAttemptedCommit": applied, "lastSuccessfulCommit": applied,
		"permalink": permalink, "lastResyncTime": stamp(ranAt), "failures": int64(0),
	}
	cond := func(typ, status, reason, msg string) map[string]any {
		return map[string]any{"type": typ, "status": status, "reason": reason, "message": msg,
			"lastTransitionTime": stamp(ranAt), "observedGeneration": int64(1)}
	}
	st := map[string]any{
		"observedGeneration":       int64(1),
		"observedReconcileRequest": "",
		"lastUpdate":               last,
		"projectInfo":              map[string]any{"name": project, "runtime": pick(r, []string{"go", "nodejs", "python", "yaml"})},
		"outputs": map[string]any{
			"kubeconfig": "[secret]",
			"endpoint":   fmt.Sprintf("https://%s.%s.acme.example", project, env),
			"region":     "eu-west-1",
			"vpcId":      "vpc-" + commit(name, "vpc")[:17],
			"subnetIds":  []any{"subnet-" + commit(name, 1)[:17], "subnet-" + commit(name, 2)[:17], "subnet-" + commit(name, 3)[:17]},
			"tags":       map[string]any{"team": teams[i%len(teams)], "env": env, "managed-by": "pulumi"},
		},
		"conditions": []any{cond("Ready", "True", "ProcessingCompleted", "the stack has been processed and is up to date")},
	}
	upd := map[string]any{
		"observedGeneration": int64(1),
		"startTime":          stamp(ranAt.Add(-90 * time.Second)),
		"endTime":            stamp(ranAt),
		"permalink":          permalink,
		"message":            "",
		"outputs":            updName + "-stack-outputs",
		"conditions": []any{
			cond("Progressing", "False", "Complete", ""),
			cond("Failed", "False", "UpdateSucceeded", ""),
			cond("Complete", "True", "Updated", ""),
		},
	}
	switch state {
	case StackRunning:
		ranAt = now.Add(-time.Duration(20+r.IntN(200)) * time.Second)
		updName = fmt.Sprintf("%s-%x", name, ranAt.UnixMilli())
		st["currentUpdate"] = map[string]any{"generation": int64(1), "reconcileRequest": "", "name": updName, "commit": head}
		st["conditions"] = []any{
			cond("Ready", "False", "NotReadyInProgress", "reconciliation is in progress"),
			cond("Reconciling", "True", "StackProcessing", "stack is being processed"),
		}
		upd = map[string]any{
			"observedGeneration": int64(1),
			"startTime":          stamp(ranAt),
			"conditions": []any{
				cond("Progressing", "True", "Progressing", ""),
				cond("Failed", "False", "Progressing", ""),
				cond("Complete", "False", "Progressing", ""),
			},
		}
	case StackRetrying, StackStalled:
		failures := int64(1)
		msg := "1 update failure(s)"
		st["conditions"] = []any{
			cond("Ready", "False", "NotReadyInProgress", "reconciliation is in progress"),
			cond("Reconciling", "True", "RetryingAfterFailure", msg),
		}
		if state == StackStalled {
			failures = 3
			st["conditions"] = []any{
				cond("Ready", "False", "NotReadyStalled", "reconciliation is stalled"),
				cond("Stalled", "True", "UpdateFailed", "up failed 3 times; not retrying until the spec or source changes"),
			}
		}
		failMsg := fmt.Sprintf("error: update failed: 1 error occurred:\n\t* creating EC2 Subnet: InvalidSubnet.Conflict: The CIDR '10.%d.0.0/20' conflicts with another subnet", r.IntN(250))
		last["state"], last["failures"], last["message"] = "failed", failures, failMsg
		last["lastAttemptedCommit"] = head
		upd["message"] = failMsg
		upd["conditions"] = []any{
			cond("Progressing", "False", "Complete", ""),
			cond("Failed", "True", "UpdateFailed", failMsg),
			cond("Complete", "True", "Updated", ""),
		}
	}
	stackStatus = map[string]any{"status": st}

	update = map[string]any{
		"apiVersion": "auto.pulumi.com/v1alpha1",
		"kind":       "Update",
		"metadata": map[string]any{
			"name": updName, "namespace": ns,
			"labels": map[string]any{"pulumi.com/component": "stack", "pulumi.com/stack-name": name},
		},
		"spec": map[string]any{
			"workspaceName": name, "stackName": spec["stack"], "type": "up",
			"ttlAfterCompleted": "24h0m0s", "message": "New commit detected: \"" + head + "\"",
		},
	}
	updateStatus = map[string]any{"status": upd}
	return stack, stackStatus, update, updateStatus
}
