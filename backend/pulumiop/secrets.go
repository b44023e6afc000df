package pulumiop

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/objread"
)

// readSecretRefs reads the Secrets a Stack's runs read, and the secrets
// its spec holds as literals: an envRefs or secretsRef entry of type
// Secret (its namespace the Stack's unless given), the whole Secrets of
// envSecrets, and accessTokenSecret (operator 1.x) as the key
// accessToken, as the operator reads them.
func readSecretRefs(spec *objread.Reader, namespace string, f *model.StackFacts) {
	for _, field := range []string{"envRefs", "secretsRef"} {
		refs := spec.Map(field)
		names := make([]string, 0, len(refs))
		for name := range refs {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			ref := spec.At(field, name)
			where := field + "." + name
			switch strings.ToLower(ref.Str("type")) {
			case "secret":
				ns := ref.Str("secret", "namespace")
				if ns == "" {
					ns = namespace
				}
				f.SecretRefs = append(f.SecretRefs, model.SecretRef{Field: where, Namespace: ns, Name: ref.Str("secret", "name"), Key: ref.Str("secret", "key")})
			case "literal":
				if field == "secretsRef" || sensitiveEnv(name) {
					f.Literals = append(f.Literals, where)
				}
			}
		}
	}
	for i, v := range spec.Slice("envSecrets") {
		if name, ok := v.(string); ok && name != "" {
			f.SecretRefs = append(f.SecretRefs, model.SecretRef{Field: "envSecrets[" + strconv.Itoa(i) + "]", Namespace: namespace, Name: name})
		}
	}
	if name := spec.Str("accessTokenSecret"); name != "" {
		f.SecretRefs = append(f.SecretRefs, model.SecretRef{Field: "accessTokenSecret", Namespace: namespace, Name: name, Key: "accessToken"})
	}
}

// sensitiveEnv tells whether an environment variable's name says it holds
// a secret: Pulumi's passphrase and token, and cloud credentials.
func sensitiveEnv(name string) bool {
	upper := strings.ToUpper(name)
	return slices.ContainsFunc([]string{"PASSPHRASE", "SECRET", "TOKEN", "PASSWORD", "CREDENTIALS", "PRIVATE_KEY"}, func(word string) bool {
		return strings.Contains(upper, word)
	})
}
