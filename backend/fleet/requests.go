package fleet

import (
	"context"
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/driftdeck/driftdeck/backend/changereq"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
)

// requestSpec watches a context's change requests into Requests, each
// unit marked with its open one. A cluster without them lacks nothing; who
// may not list them everywhere reads those of the context's namespace.
func (f *Fleet) requestSpec(c *kube.Cluster, h *health) watchSpec {
	affected := func(ns string) func(*model.Unit) bool {
		return func(u *model.Unit) bool { return u.Key.Context == c.Context && (ns == "" || u.Key.Namespace == ns) }
	}
	return watchSpec{what: "change requests", versions: []schema.GroupVersionResource{changereq.GVR}, optional: true, nearby: true,
		run: func(ctx context.Context, gvr schema.GroupVersionResource, namespace string, absent func(error) bool, done func()) {
			kube.Watch(ctx, c, gvr, namespace, kube.Feed[*changereq.ChangeRequest]{
				Convert: func(obj map[string]any) *changereq.ChangeRequest {
					cr, err := changereq.FromObject(obj)
					if err != nil {
						return &changereq.ChangeRequest{} // not one driftdeck can read: marks nothing
					}
					return cr
				},
				Put: func(cr *changereq.ChangeRequest) {
					if cr.Name == "" {
						return
					}
					f.Requests.Put(c.Context, cr)
					f.Store.Reclassify(affected(cr.Namespace))
				},
				Delete: func(ns, name string) {
					f.Requests.Remove(c.Context, ns, name)
					f.Store.Reclassify(affected(ns))
				},
				Replace: func(crs []*changereq.ChangeRequest) {
					f.Requests.Replace(c.Context, namespace, slices.DeleteFunc(crs, func(cr *changereq.ChangeRequest) bool { return cr.Name == "" }))
					f.Store.Reclassify(affected(namespace))
					done()
				},
				Absent: absent,
			}, h)
		}}
}
