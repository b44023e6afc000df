// Package argodiff answers "what would a sync of this Argo CD Application
// change?": it pairs every managed object's live state with its desired state
// and hands the pairs to the diff engine (backend/diff), which normalises them
// and masks Secret values.
//
// Two sources give the pairs:
//
//   - the Argo CD API server (GET /api/v1/applications/{name}/managed-resources),
//     when a server is configured by flags, ARGOCD_SERVER/ARGOCD_AUTH_TOKEN or
//     the argocd CLI's own config file; it shows what `argocd app diff` shows;
//   - a local render otherwise: the driftdeck-render helper (backend/localrender)
//     fetches the source repository at the revision the controller compared
//     against and renders its plain manifests or kustomization, and each
//     object is dry-run applied to the cluster, so server-side defaults appear
//     on both sides and only real changes remain.
//
// Every Result carries the Application's sync revision at the time of the
// diff, so an approval can be bound to exactly what was shown (Result.Stale).
package argodiff
