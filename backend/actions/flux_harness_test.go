package actions

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/driftdeck/driftdeck/backend/engines"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// fluxCase is one Flux-runtime kind as a CRD set serves it, through one of
// its served versions.
type fluxCase struct {
	engine model.Engine
	gvr    schema.GroupVersionResource
}

func (c fluxCase) String() string { return string(c.engine) + "-" + c.gvr.Version }

var fluxKinds = map[model.Engine]string{
	model.EngineKustomization: "Kustomization",
	model.EngineHelmRelease:   "HelmRelease",
	model.EngineTerraform:     "Terraform",
}

// fluxSpecs are valid specs per engine, for every version driftdeck reads.
var fluxSpecs = map[model.Engine]string{
	model.EngineKustomization: `"interval":"10m","path":"./deploy","prune":true,"sourceRef":{"kind":"GitRepository","name":"infra"}`,
	model.EngineHelmRelease:   `"interval":"10m","chart":{"spec":{"chart":"podinfo","sourceRef":{"kind":"HelmRepository","name":"charts"}}}`,
	model.EngineTerraform:     `"interval":"10m","path":"./infra","sourceRef":{"kind":"GitRepository","name":"infra"}`,
}

// forEachFluxGeneration runs fn on one control plane per CRD set that
// serves a Flux or tofu-controller kind (the upstream releases in
// ../shared/crds and our own), with a case for every served version of
// each kind.
func forEachFluxGeneration(t *testing.T, fn func(e *env, set string, cases []fluxCase)) {
	own, err := testcluster.OwnCRDs()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range append(testcluster.UpstreamCRDSets(t), own) {
		var cases []fluxCase
		for _, engine := range []model.Engine{model.EngineKustomization, model.EngineHelmRelease, model.EngineTerraform} {
			for _, gvr := range engines.Versions(engine) {
				crd, err := s.CRD(gvr.GroupVersion().WithKind(fluxKinds[engine]))
				if err != nil {
					t.Fatal(err)
				}
				if crd != nil {
					cases = append(cases, fluxCase{engine, gvr})
				}
			}
		}
		if len(cases) == 0 {
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			c := testcluster.SharedServing(t, []testcluster.CRDSet{s})
			fn(newEnv(t, c, c.Config()), s.Name, cases)
		})
	}
}

// fluxObj creates a unit of the case's kind through the case's version, with
// extra spec fields and a status (written through the status subresource, as
// the controllers do).
func (e *env) fluxObj(c fluxCase, name, spec, annotations, status string) *unstructured.Unstructured {
	e.t.Helper()
	if spec != "" {
		spec = "," + spec
	}
	text := fmt.Sprintf(`{"apiVersion":%q,"kind":%q,"metadata":{"name":%q,"annotations":{%s}},"spec":{%s%s}}`,
		c.gvr.GroupVersion().String(), fluxKinds[c.engine], name, annotations, fluxSpecs[c.engine], spec)
	out := e.create(c.gvr, "%s", text)
	if status == "" {
		return out
	}
	var st map[string]any
	if err := json.Unmarshal([]byte("{"+status+"}"), &st); err != nil {
		e.t.Fatalf("bad status %s: %v", status, err)
	}
	out.Object["status"] = st
	out, err := e.dyn.Resource(c.gvr).Namespace(e.ns).UpdateStatus(context.Background(), out, metav1.UpdateOptions{})
	if err != nil {
		e.t.Fatalf("status of %s: %v", name, err)
	}
	return out
}

// read gets the unit through the version driftdeck writes (the newest
// served), which is what the controllers read.
func (e *env) read(c fluxCase, name string) *unstructured.Unstructured {
	e.t.Helper()
	return e.get(engines.Versions(c.engine)[0], name)
}

// managedBy lists the fields (as managedFields spells them) that a manager
// owns on the object.
func managedBy(o *unstructured.Unstructured, manager string) string {
	var out []string
	for _, m := range o.GetManagedFields() {
		if m.Manager == manager && m.FieldsV1 != nil {
			out = append(out, string(m.FieldsV1.Raw))
		}
	}
	return strings.Join(out, " ")
}

// sourceStandIns are source-controller's kinds, open-schema: the upstream
// sets here have no source-controller CRDs, and a request only writes an
// annotation.
func sourceStandIns(t *testing.T) testcluster.CRDSet {
	dir := t.TempDir()
	for kind, r := range sourceResources {
		crd := fmt.Sprintf(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: %[1]s.source.toolkit.fluxcd.io
spec:
  group: source.toolkit.fluxcd.io
  names: {kind: %[2]s, listKind: %[2]sList, plural: %[1]s, singular: %[3]s}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`, r.resource, kind, strings.ToLower(kind))
		if err := os.WriteFile(filepath.Join(dir, r.resource+".yaml"), []byte(crd), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return testcluster.CRDSet{Name: "flux-source-stand-ins", Dir: dir}
}
