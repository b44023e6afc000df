package livedescribe

const hidden = "[hidden]"

// lastApplied is kubectl's copy of the object as applied: on a Stack it
// holds the same secrets as the spec, in clear.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// maskStackSecrets hides what a Stack carries in clear for the operator to
// use as secrets: literal environment values (PULUMI_CONFIG_PASSPHRASE,
// PULUMI_ACCESS_TOKEN, cloud keys), literal secret config values, the
// deprecated plaintext secrets map, and kubectl's last-applied copy of them.
// References (to a Secret, an env var, a file) stay readable.
func maskStackSecrets(obj map[string]any) {
	spec, _ := obj["spec"].(map[string]any)
	if secrets, ok := spec["secrets"].(map[string]any); ok {
		for k := range secrets {
			secrets[k] = hidden
		}
	}
	for _, field := range []string{"envRefs", "secretsRef"} {
		refs, _ := spec[field].(map[string]any)
		for _, ref := range refs {
			ref, _ := ref.(map[string]any)
			if lit, ok := ref["literal"].(map[string]any); ok {
				if _, ok := lit["value"]; ok {
					lit["value"] = hidden
				}
			}
		}
	}
	meta, _ := obj["metadata"].(map[string]any)
	if ann, ok := meta["annotations"].(map[string]any); ok {
		if _, ok := ann[lastApplied]; ok {
			ann[lastApplied] = hidden + " (the spec as applied, secrets included)"
		}
	}
}
