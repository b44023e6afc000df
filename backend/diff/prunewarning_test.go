package diff

import (
	"strings"
	"testing"
)

func stackObject(name string, destroys bool) map[string]any {
	return map[string]any{"apiVersion": "pulumi.com/v1", "kind": "Stack", "metadata": map[string]any{"name": name, "namespace": "infra"},
		"spec": map[string]any{"stack": "acme/" + name + "/prod", "destroyOnFinalize": destroys}}
}

// Pruning a Stack that destroys on finalize deletes every resource of its
// stack: the report says so; one that does not, or a Stack kept, is not
// warned about.
func TestPruningAStackThatDestroysOnFinalizeIsWarnedAbout(t *testing.T) {
	r, err := Objects([]Pair{
		{Live: stackObject("network", true)},
		{Live: stackObject("dns", false)},
		{Live: stackObject("kept", true), Desired: stackObject("kept", true)},
	}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := r.Warnings()
	if len(w) != 1 || !strings.Contains(w[0], "pruning Stack infra/network runs pulumi destroy on stack \"acme/network/prod\"") {
		t.Errorf("warnings %q; want network's prune only", w)
	}
}
