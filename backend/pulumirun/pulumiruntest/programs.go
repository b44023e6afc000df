package pulumiruntest

import (
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Slow is a program that registers "a", then blocks until the run is
// cancelled (or a minute passes); with onlyApply it blocks only outside
// previews. It lets a test cancel a run that holds the stack's lock.
func Slow(onlyApply bool) pulumi.RunFunc {
	return func(ctx *pulumi.Context) error {
		if _, err := pulumi.NewStash(ctx, "a", &pulumi.StashArgs{Input: pulumi.String("a")}); err != nil {
			return err
		}
		if onlyApply && ctx.DryRun() {
			return nil
		}
		select {
		case <-ctx.Context().Done():
			return ctx.Context().Err()
		case <-time.After(time.Minute):
			return nil
		}
	}
}
