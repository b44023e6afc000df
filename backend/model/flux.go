package model

// FluxRuntime returns the Flux runtime facts of a Kustomization, HelmRelease
// or Terraform (which embeds them), nil for the other engines.
func (u *Unit) FluxRuntime() *FluxFacts {
	switch {
	case u.Flux != nil:
		return u.Flux
	case u.Tofu != nil:
		return &u.Tofu.FluxFacts
	}
	return nil
}
