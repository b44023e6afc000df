// Package program holds the Pulumi program the demo ships for its
// analytics-preview Stack, built into the driftdeck-pulumi helper as an
// inline program: it needs no language plugin and, made of the built-in
// pulumi:index:Stash resource, no provider either, so the demo previews and
// applies for real wherever the pulumi CLI is on hand. Against the state the
// demo seeds (backend/demo), its preview updates, replaces, creates, deletes
// and keeps a resource.
package program

import "github.com/pulumi/pulumi/sdk/v3/go/pulumi"

// Analytics names the program in a run's Target.Inline; backend/demo maps
// its Stack to it by the same name.
const Analytics = "driftdeck-demo/analytics"

// Programs are the inline programs of the release helper.
var Programs = map[string]pulumi.RunFunc{Analytics: analytics}

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
	if _, err := pulumi.NewStash(ctx, "ingest-queue", &pulumi.StashArgs{Input: pulumi.Map{
		"name":              pulumi.String("analytics-ingest-prod"),
		"visibilityTimeout": pulumi.Int(120),
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
