// Command helper is driftdeck-pulumi with inline programs, for tests that
// run Pulumi through the helper without a language plugin.
package main

import (
	"os"

	"github.com/driftdeck/driftdeck/backend/pulumirun/engine"
	"github.com/driftdeck/driftdeck/backend/pulumirun/pulumiruntest"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// programs are what a test names in Target.Inline.
var programs = map[string]pulumi.RunFunc{
	"stashes": stashes,
	"slow":    pulumiruntest.Slow(true),
	// slow-preview blocks in previews too.
	"slow-preview": pulumiruntest.Slow(false),
}

func main() { os.Exit(engine.Main(os.Args, programs)) }

// stashes stores config "first" in Stash "first", and "second" in "second"
// and, as a secret, in "secret" (replaced when it changes).
func stashes(ctx *pulumi.Context) error {
	get := func(key string) string {
		v, _ := ctx.GetConfig(ctx.Project() + ":" + key)
		return v
	}
	first, err := pulumi.NewStash(ctx, "first", &pulumi.StashArgs{Input: pulumi.String(get("first"))})
	if err != nil {
		return err
	}
	second, err := pulumi.NewStash(ctx, "second", &pulumi.StashArgs{Input: pulumi.String(get("second"))}, pulumi.DependsOn([]pulumi.Resource{first}))
	if err != nil {
		return err
	}
	_, err = pulumi.NewStash(ctx, "secret", &pulumi.StashArgs{Input: pulumi.ToSecret(pulumi.String("pw-" + get("second")))},
		pulumi.ReplaceOnChanges([]string{"input"}), pulumi.DependsOn([]pulumi.Resource{second}))
	return err
}
