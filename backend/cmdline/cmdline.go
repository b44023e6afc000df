// Package cmdline writes the commands driftdeck prints for a person to run
// (doctor's fixes, the hints and errors that name a command): each names
// where its unit was found and quotes every word for sh, so that pasted it
// acts there, on that context, and nowhere else (not on whatever the current
// kubeconfig context is by then, possibly production).
package cmdline

import (
	"path/filepath"
	"strings"
)

// Origin is where driftdeck found the units it prints commands for: the
// embedded demo, or a kubeconfig (the one given with --kubeconfig, else the
// default one) and, per unit, its context.
type Origin struct {
	Demo bool
	// Kubeconfig is the --kubeconfig given, "" for the default lookup.
	Kubeconfig string
}

// NewOrigin is the origin of a run with these flags; a relative kubeconfig
// path is made absolute, so the command works from any directory.
func NewOrigin(demo bool, kubeconfig string) Origin {
	if kubeconfig != "" {
		if abs, err := filepath.Abs(kubeconfig); err == nil {
			kubeconfig = abs
		}
	}
	return Origin{Demo: demo, Kubeconfig: kubeconfig}
}

// Driftdeck is the driftdeck command line with args for a unit of
// kubeContext: "driftdeck --demo ..." on the demo, else "driftdeck
// [--kubeconfig <path>] --context <name> ...", every word quoted.
func (o Origin) Driftdeck(kubeContext string, args ...string) string {
	return Join(append(o.where("driftdeck", kubeContext), args...)...)
}

// Kubectl is the kubectl command line with args for an object of
// kubeContext, every word quoted; "" on the demo, whose control plane is in
// driftdeck's process, out of kubectl's reach (pasted, it would act on the
// current kubeconfig context instead).
func (o Origin) Kubectl(kubeContext string, args ...string) string {
	if o.Demo {
		return ""
	}
	return Join(append(o.where("kubectl", kubeContext), args...)...)
}

func (o Origin) where(program, kubeContext string) []string {
	w := []string{program}
	switch {
	case o.Demo:
		return append(w, "--demo")
	case o.Kubeconfig != "":
		w = append(w, "--kubeconfig", o.Kubeconfig)
	}
	if kubeContext != "" {
		w = append(w, "--context", kubeContext)
	}
	return w
}

// Quote makes a word safe to paste into sh: as is when it holds only
// characters sh takes literally, else in single quotes, each quote inside
// closing them, escaped, and opening them again. Every value of a printed
// command that comes from a cluster (a name, a lock id, a cause) goes
// through it: a value with a space, a ; or a $( must not run as anything
// but one argument.
func Quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Join is a command line of quoted words.
func Join(words ...string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = Quote(w)
	}
	return strings.Join(q, " ")
}
