// Package program holds the Pulumi programs the demo ships for its
// analytics-preview and network-prod Stacks, built into the driftdeck-pulumi
// helper as inline programs: they need no language plugin and, made of the
// built-in pulumi:index:Stash resource, no provider either, so the demo
// previews and applies for real wherever the pulumi CLI is on hand. Against
// the state the demo seeds (backend/demo), analytics' preview updates,
// replaces, creates, deletes and keeps a resource, and its refresh finds
// the outputs it read from network-prod changed; network's creates the
// gateway a killed run left pending and updates the flow logs.
package program

import "github.com/pulumi/pulumi/sdk/v3/go/pulumi"

// Analytics and Network name the programs in a run's Target.Inline;
// backend/demo maps its Stacks to them by the same names.
const (
	Analytics = "driftdeck-demo/analytics"
	Network   = "driftdeck-demo/network"
)

// Programs are the inline programs of the release helper.
var Programs = map[string]pulumi.RunFunc{Analytics: analytics, Network: network}

// analytics is the "analytics" project at the head of its branch.
func analytics(ctx *pulumi.Context) error {
	events, err := pulumi.NewStash(ctx, "events-bucket", &pulumi.StashArgs{Input: pulumi.Map{
		"name":          pulumi.String("acme-analytics-events-prod"),
		"retentionDays": pulumi.Int(30),
		"versioning":    pulumi.Bool(true),
	}})
	if err != nil {
		return err
	}
	// The warehouse cannot change its engine in place.
	if _, err := pulumi.NewStash(ctx, "warehouse", &pulumi.StashArgs{Input: pulumi.String("clickhouse-24.8")},
		pulumi.ReplaceOnChanges([]string{"input"}), pulumi.DependsOn([]pulumi.Resource{events})); err != nil {
		return err
	}
	// The queue lives in network-prod's VPC.
	network, err := pulumi.NewStackReference(ctx, "organization/network/prod", nil)
	if err != nil {
		return err
	}
	if _, err := pulumi.NewStash(ctx, "ingest-queue", &pulumi.StashArgs{Input: pulumi.Map{
		"name":              pulumi.String("analytics-ingest-prod"),
		"visibilityTimeout": pulumi.Int(120),
		"vpcId":             network.GetStringOutput(pulumi.String("vpcId")),
	}}, pulumi.DependsOn([]pulumi.Resource{events})); err != nil {
		return err
	}
	if _, err := pulumi.NewStash(ctx, "ingest-token", &pulumi.StashArgs{
		Input: pulumi.ToSecret(pulumi.String("tok-7c1e9b04d2a6")),
	}); err != nil {
		return err
	}
	_, err = pulumi.NewStash(ctx, "dashboards", &pulumi.StashArgs{Input: pulumi.Map{
		"folder": pulumi.String("Analytics / Prod"),
		"count":  pulumi.Int(12),
	}})
	return err
}

// network is the "network" project at the head of its branch. The run that
// died was creating egress-b; flow-logs keeps its records longer since.
func network(ctx *pulumi.Context) error {
	vpc, err := pulumi.NewStash(ctx, "vpc", &pulumi.StashArgs{Input: pulumi.Map{
		"cidrBlock": pulumi.String("10.40.0.0/16"),
		"region":    pulumi.String("eu-central-1"),
	}})
	if err != nil {
		return err
	}
	after := pulumi.DependsOn([]pulumi.Resource{vpc})
	for _, sn := range []struct{ name, cidr, zone, eip string }{
		{"a", "10.40.0.0/20", "eu-central-1a", "52.29.14.201"},
		{"b", "10.40.16.0/20", "eu-central-1b", "52.29.88.17"},
	} {
		subnet, err := pulumi.NewStash(ctx, "subnet-"+sn.name, &pulumi.StashArgs{Input: pulumi.Map{
			"cidrBlock": pulumi.String(sn.cidr), "zone": pulumi.String(sn.zone),
		}}, after)
		if err != nil {
			return err
		}
		if _, err := pulumi.NewStash(ctx, "egress-"+sn.name, &pulumi.StashArgs{Input: pulumi.Map{
			"subnet": pulumi.String("subnet-" + sn.name), "publicIp": pulumi.String(sn.eip),
		}}, pulumi.DependsOn([]pulumi.Resource{subnet})); err != nil {
			return err
		}
	}
	if _, err := pulumi.NewStash(ctx, "flow-logs", &pulumi.StashArgs{Input: pulumi.Map{
		"retentionDays": pulumi.Int(30), "traffic": pulumi.String("REJECT"),
	}}, after); err != nil {
		return err
	}
	ctx.Export("vpcId", pulumi.String("vpc-0c81f2a9e4d5b6a71"))
	return nil
}
