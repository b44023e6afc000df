// Package diff compares Kubernetes objects (and any other JSON-shaped values,
// such as Pulumi resource properties) the way a person reviewing a change
// wants to see them. It is pure: no cluster access, no terminal code.
//
// The usual entry points are Object and Objects. Each takes the live and the
// desired side of an object as map[string]any (Parse turns JSON or YAML bytes
// into that form) and returns:
//
//   - the normalised YAML of both sides: Kubernetes objects lose the fields
//     the server owns (managedFields, status unless Options.KeepStatus,
//     resourceVersion, uid, generation, creationTimestamp, selfLink and the
//     last-applied-configuration annotation); keys are sorted;
//   - secrets masked: the values of a core/v1 Secret's data (stringData is
//     folded into data first, as the API server does) and of every field named
//     in Options.SecretFields become "++++++++", or "+++++++++" on the desired
//     side when the two values differ, so a change stays visible while no byte,
//     length or hash of the value is shown; Pulumi's secret placeholders (the
//     string "[secret]" and its signature objects) always read "[secret]";
//   - the changed field paths, found by walking both values, written like
//     spec.template.spec.containers[0].image or
//     metadata.labels["app.kubernetes.io/name"];
//   - a line diff of the two YAML texts (Text), which gives unified hunks
//     (TextDiff.Hunks), aligned rows for a two-column view (Hunk.Rows) and
//     `diff -u` text (WriteUnified).
//
// Line diffs run under a time bound. When it runs out, the result is still an
// exact account of both texts but may mark more lines as changed than needed;
// TextDiff.Approximate says so, and the views tell the user.
package diff
