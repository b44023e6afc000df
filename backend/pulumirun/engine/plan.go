package engine

import (
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/urn"
)

// planViolation shortens the engine's "resource <urn> violates plan: <why>"
// to "<name>: <why>", dropping the property values the engine appends.
func planViolation(u, msg string) string {
	_, why, ok := strings.Cut(msg, "violates plan: ")
	if !ok {
		why = "does not match the plan"
	}
	if head, _, cut := strings.Cut(why, ": "); cut {
		why = head
	}
	name := resourceName(u)
	if name == "" {
		name = "a resource"
	}
	return name + ": " + why
}

// resourceName is the name part of a URN ("" when u is not a URN; the sdk's
// URN methods panic on those).
func resourceName(u string) string {
	if !urn.URN(u).IsValid() {
		return ""
	}
	return urn.URN(u).Name()
}
