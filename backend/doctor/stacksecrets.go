package doctor

import (
	"context"
	"maps"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
)

// CheckStackSecrets finds the Stacks whose secrets stand in their way: a
// Secret they name that does not exist or lacks the key (the Pulumi
// operator then fails the run before Pulumi starts), and a passphrase,
// token or credential written in the spec itself, which whoever may read
// the Stack reads. Only whether a Secret holds a key is looked at: no
// value is ever put in a finding.
func CheckStackSecrets(ctx context.Context, units []*model.Unit, cluster func(string) (*kube.Cluster, bool)) []Finding {
	keys := secretKeys{ctx: ctx, cluster: cluster, known: map[secretName]secretAnswer{}}
	var out []Finding
	for _, u := range units {
		if u.Stack == nil {
			continue
		}
		var missing, literal []string
		for _, ref := range u.Stack.SecretRefs {
			if problem := keys.check(u.Key.Context, ref); problem != "" {
				missing = append(missing, problem)
			}
		}
		for _, field := range u.Stack.Literals {
			literal = append(literal, field+" is written in the Stack's spec")
		}
		switch {
		case len(missing) > 0:
			out = append(out, Finding{Key: u.Key, State: "missing secret", Cause: strings.Join(append(missing, literal...), "; "),
				Hint: "create the Secret or its key (driftdeck looks at its keys only), or correct the Stack's reference; the next run reads it"})
		case len(literal) > 0:
			out = append(out, Finding{Key: u.Key, State: "secret in spec", Cause: strings.Join(literal, "; "),
				Hint: "move the value into a Secret and name it instead (envRefs: {type: Secret, secret: {name, key}}): whoever may read the Stack reads it now"})
		}
	}
	return out
}

type secretName struct{ context, namespace, name string }

// secretAnswer is what a Secret's read said: its keys, or why it has none.
type secretAnswer struct {
	keys    []string
	problem string // "does not exist", "may not be read (RBAC)", ...
}

// secretKeys reads each Secret named once, keeping only its keys.
type secretKeys struct {
	ctx     context.Context
	cluster func(string) (*kube.Cluster, bool)
	known   map[secretName]secretAnswer
}

// check says what is wrong with ref, "" when the Secret holds its key.
func (s *secretKeys) check(context string, ref model.SecretRef) string {
	name := secretName{context, ref.Namespace, ref.Name}
	answer, ok := s.known[name]
	if !ok {
		answer = s.read(name)
		s.known[name] = answer
	}
	where := ref.Field + " names Secret " + ref.Namespace + "/" + ref.Name
	switch {
	case answer.problem != "":
		return where + ", which " + answer.problem
	case ref.Key != "" && !slices.Contains(answer.keys, ref.Key):
		return where + ", which has no key " + ref.Key + " (its keys: " + orWords(strings.Join(answer.keys, ", "), "none") + ")"
	}
	return ""
}

func (s *secretKeys) read(name secretName) secretAnswer {
	c, ok := s.cluster(name.context)
	if !ok {
		return secretAnswer{problem: "could not be read: the context is not connected"}
	}
	secret, err := c.Kube.CoreV1().Secrets(name.namespace).Get(s.ctx, name.name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return secretAnswer{problem: "does not exist"}
	case apierrors.IsForbidden(err):
		return secretAnswer{problem: "you may not read (RBAC), so it is not checked"}
	case err != nil:
		return secretAnswer{problem: "could not be read: " + err.Error()}
	}
	return secretAnswer{keys: slices.Sorted(maps.Keys(secret.Data))}
}
