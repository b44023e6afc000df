package cli

import "context"

func runTUI(ctx context.Context, g *globals) error {
	_, err := connect(ctx, g)
	return err
}
