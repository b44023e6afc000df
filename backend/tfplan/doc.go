// Package tfplan answers "what would this Terraform apply change?" for a
// tofu-controller Terraform: it reads the plan the controller stored in the
// cluster (DESIGN.md section 3) and turns it into a per-resource diff
// (backend/diff), so a plan reads like an Argo CD diff.
//
// tofu-controller v0.16 stores, in the Terraform's namespace:
//
//   - the saved plan, Secret tfplan-<workspace>-<name> (key tfplan, gzipped);
//   - with spec.storeReadablePlan: human, `tofu show -no-color` of it in the
//     ConfigMap of the same name (key tfplan);
//   - with spec.storeReadablePlan: json, `tofu show -json` of it in the Secret
//     tfplan-<workspace>-<name>.json (key tfplan, gzipped).
//
// Each is annotated savedPlan: <plan id>. One larger than 1 MiB is split into
// chunks named <name>-0, <name>-1, ... (annotation
// infra.contrib.fluxcd.io/plan-chunk), labelled
// infra.contrib.fluxcd.io/plan-name and plan-workspace; older versions wrote
// one object with no labels. The binary plan cannot be read without the
// Terraform working directory, so only the readable forms are shown.
//
// Sensitive values never appear: the human plan is masked by tofu itself, and
// every path the JSON plan marks sensitive is masked here. Every Plan carries
// the id of the plan it shows, so an approval can be bound to exactly it.
package tfplan
