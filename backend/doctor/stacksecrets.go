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
// value is ever put in a finding. unchecked says, once each, why some
// Secrets could not be looked at (RBAC, most often): partial rights are
// normal, and a Secret not read is no finding.
func CheckStackSecrets(ctx context.Context, units []*model.Unit, cluster func(string) (*kube.Cluster, bool)) (findings []Finding, unchecked []string) {
	keys := secretKeys{ctx: ctx, cluster: cluster, known: map[secretName]secretAnswer{}}
	for _, u := range units {
		if u.Stack == nil {
			continue
		}
		var missing, literal []string
		for _, ref := range u.Stack.SecretRefs {
			problem, why := keys.check(u.Key.Context, ref)
			if problem != "" {
				missing = append(missing, problem)
			}
			if why != "" && !slices.Contains(unchecked, why) {
				unchecked = append(unchecked, why)
			}
		}
		for _, field := range u.Stack.Literals {
			literal = append(literal, field+" is written in the Stack's spec")
		}
		switch {
		case len(missing) > 0:
			findings = append(findings, Finding{Key: u.Key, State: "missing secret", Cause: strings.Join(append(missing, literal...), "; "),
				Hint: "create the Secret or its key (driftdeck looks at its keys only), or correct the Stack's reference; the next run reads it"})
		case len(literal) > 0:
			findings = append(findings, Finding{Key: u.Key, State: "secret in spec", Cause: strings.Join(literal, "; "),
				Hint: "move the value into a Secret and name it instead (envRefs: {type: Secret, secret: {name, key}}): whoever may read the Stack reads it now"})
		}
	}
	return findings, unchecked
}

type secretName struct{ context, namespace, name string }

// secretAnswer is what a Secret's read said: its keys, that it does not
// exist, or why it could not be read.
type secretAnswer struct {
	keys       []string
	missing    bool
	unreadable string
}

// secretKeys reads each Secret named once, keeping only its keys.
type secretKeys struct {
	ctx     context.Context
	cluster func(string) (*kube.Cluster, bool)
	known   map[secretName]secretAnswer
}

// check says what is wrong with ref ("" when the Secret holds its key),
// or why it could not be checked.
func (s *secretKeys) check(context string, ref model.SecretRef) (problem, unchecked string) {
	name := secretName{context, ref.Namespace, ref.Name}
	answer, ok := s.known[name]
	if !ok {
		answer = s.read(name)
		s.known[name] = answer
	}
	where := ref.Field + " names Secret " + ref.Namespace + "/" + ref.Name
	switch {
	case answer.unreadable != "":
		return "", answer.unreadable
	case answer.missing:
		return where + ", which does not exist", ""
	case ref.Key != "" && !slices.Contains(answer.keys, ref.Key):
		return where + ", which has no key " + ref.Key + " (its keys: " + orWords(strings.Join(answer.keys, ", "), "none") + ")", ""
	}
	return "", ""
}

func (s *secretKeys) read(name secretName) secretAnswer {
	c, ok := s.cluster(name.context)
	if !ok {
		return secretAnswer{unreadable: "context " + name.context + " is not connected"}
	}
	secret, err := c.Kube.CoreV1().Secrets(name.namespace).Get(s.ctx, name.name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return secretAnswer{missing: true}
	case apierrors.IsForbidden(err):
		return secretAnswer{unreadable: "you may not get Secrets in " + name.namespace + " (RBAC)"}
	case err != nil:
		return secretAnswer{unreadable: "reading Secret " + name.namespace + "/" + name.name + ": " + err.Error()}
	}
	return secretAnswer{keys: slices.Sorted(maps.Keys(secret.Data))}
}
