package diff

import "fmt"

// pruneWarning says what pruning the live object destroys beyond itself,
// "" when nothing: a Pulumi operator Stack with spec.destroyOnFinalize runs
// pulumi destroy on its stack when it is deleted, so a sync or apply that
// prunes it deletes every resource the stack manages.
func pruneWarning(k ObjectKey, live map[string]any) string {
	if k.Group != "pulumi.com" || k.Kind != "Stack" {
		return ""
	}
	spec, _ := live["spec"].(map[string]any)
	if destroys, _ := spec["destroyOnFinalize"].(bool); !destroys {
		return ""
	}
	stack, _ := spec["stack"].(string)
	return fmt.Sprintf("pruning Stack %s/%s runs pulumi destroy on stack %q (spec.destroyOnFinalize: true): every resource it manages is deleted", k.Namespace, k.Name, stack)
}

// Warnings lists what the report's prunes destroy beyond the objects
// themselves.
func (r *Report) Warnings() []string {
	var out []string
	for _, o := range r.Objects {
		if o.Warning != "" {
			out = append(out, o.Warning)
		}
	}
	return out
}
