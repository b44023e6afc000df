package logs

import (
	"context"
	"encoding/base64"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/driftdeck/driftdeck/backend/kube"
)

// MinMaskedLen is the shortest value masked: shorter ones ("1", "true")
// would blank ordinary words all over the log (ADR 0015).
const MinMaskedLen = 4

// Masked replaces a Secret's value in a log line.
const Masked = "•••"

// masker replaces, in each line, the exact values of the Secrets the pod
// references (env, envFrom, volumes), their lines and their base64 form.
// notices say what it could not read, so the user knows what is unmasked.
type masker struct {
	r       *strings.Replacer
	notices []string
}

func newMasker(ctx context.Context, c *kube.Cluster, pod *corev1.Pod) *masker {
	m := &masker{}
	var values []string
	for _, name := range referencedSecrets(pod) {
		sec, err := c.Kube.CoreV1().Secrets(pod.Namespace).Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			continue // nothing to leak
		case apierrors.IsForbidden(err):
			m.notices = append(m.notices, fmt.Sprintf("may not read Secret %s/%s (forbidden): its values, if the pod prints them, are NOT masked", pod.Namespace, name))
			continue
		case err != nil:
			m.notices = append(m.notices, fmt.Sprintf("could not read Secret %s/%s (%v): its values are NOT masked", pod.Namespace, name, err))
			continue
		}
		for _, v := range sec.Data {
			values = append(values, secretForms(string(v))...)
		}
	}
	m.r = replacer(values)
	return m
}

// secretForms are the texts of a value a log may show: the value, each of
// its lines (a key file prints line by line) and its base64 encoding.
func secretForms(v string) []string {
	forms := []string{v, base64.StdEncoding.EncodeToString([]byte(v))}
	if strings.Contains(v, "\n") {
		forms = append(forms, strings.Split(v, "\n")...)
	}
	var out []string
	for _, f := range forms {
		if f = strings.TrimRight(f, "\r"); len(f) >= MinMaskedLen {
			out = append(out, f)
		}
	}
	return out
}

// replacer tries the longest value first, so a value that holds another is
// masked whole.
func replacer(values []string) *strings.Replacer {
	if len(values) == 0 {
		return nil
	}
	sort.Slice(values, func(i, j int) bool { return len(values[i]) > len(values[j]) })
	pairs := make([]string, 0, 2*len(values))
	for _, v := range values {
		pairs = append(pairs, v, Masked)
	}
	return strings.NewReplacer(pairs...)
}

func (m *masker) mask(line string) string {
	if m.r == nil {
		return line
	}
	return m.r.Replace(line)
}

// referencedSecrets are the Secrets the pod's containers read, by name.
func referencedSecrets(pod *corev1.Pod) []string {
	seen := map[string]bool{}
	add := func(name string) {
		if name != "" {
			seen[name] = true
		}
	}
	for _, c := range append(append([]corev1.Container(nil), pod.Spec.InitContainers...), pod.Spec.Containers...) {
		for _, e := range c.Env {
			if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
				add(e.ValueFrom.SecretKeyRef.Name)
			}
		}
		for _, e := range c.EnvFrom {
			if e.SecretRef != nil {
				add(e.SecretRef.Name)
			}
		}
	}
	for _, v := range pod.Spec.Volumes {
		if v.Secret != nil {
			add(v.Secret.SecretName)
		}
		if v.Projected != nil {
			for _, src := range v.Projected.Sources {
				if src.Secret != nil {
					add(src.Secret.Name)
				}
			}
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
