// Package testhostile plants text that would take over a terminal (cursor
// moves, screen clears, C1 controls, clipboard writes) in the fields of a
// test cluster's units that driftdeck shows, so that a test can check each
// is shown escaped and never written raw.
package testhostile

import (
	"encoding/json"
	"testing"

	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/backend/tofu"
)

// CursorText would move the cursor home and clear the screen (CSI H, CSI
// 2J), move it again, clear it through the one-byte C1 CSI, and write to
// the clipboard, if it reached the terminal raw: a cluster's text could
// then paint over what driftdeck draws.
const CursorText = "apply failed \x1b[H\x1b[2J wiped \x1b[5;10H moved \u009b2J c1 \x1b]52;c;aGk=\x07 end"

// Escaped are CursorText's sequences as a screen or a text output must
// show them; EscapedMiddle is a run of it that holds two of them.
var Escaped = []string{`\x1b[H\x1b[2J`, `\x1b[5;10H`, `\u009b2J`, `\x1b]52;c;aGk=\x07`}

const EscapedMiddle = `wiped \x1b[5;10H moved \u009b2J c1`

// Raw are runs of CursorText that only the cluster's text holds, so that
// finding one in what driftdeck wrote means it was written raw (driftdeck's
// own drawing moves the cursor too, so a bare CSI H proves nothing).
var Raw = []string{"wiped \x1b", "moved \u009b", "\x1b]52"}

// LogLine is a log's line of raw bytes: cursor moves and bytes that are not
// UTF-8 (a log is bytes, not JSON, so they arrive as they were written);
// LogLineEscaped is how it must be shown.
const (
	LogLine        = "step 3 \x1b[2J\x1b[H \xff\xfe done\n"
	LogLineEscaped = `step 3 \x1b[2J\x1b[H \xff\xfe done`
)

// The units PlantUnits makes, by the name of each.
const (
	Kustomization = "apps"  // CursorText in its Ready condition's message
	Terraform     = "infra" // the same
	Application   = "web"   // CursorText as the reason of a pause another actor wrote, by "mallory \x1b[H"
)

// PlantUnits makes a unit of each place cursor moves can come from: a
// Kustomization's and a Terraform's condition messages, and an
// Application whose pause annotations (who paused it, and why) another
// actor wrote.
func PlantUnits(t *testing.T, dyn dynamic.Interface, ns string) {
	t.Helper()
	msg, _ := json.Marshal(CursorText)
	cond := `{"type":"Ready","status":"False","reason":"BuildFailed","message":` + string(msg) + `,"lastTransitionTime":"2026-11-29T10:00:00Z"}`
	testcluster.Create(t, dyn, flux.Kustomizations[0], ns, `{"apiVersion":"kustomize.toolkit.fluxcd.io/v1","kind":"Kustomization","metadata":{"name":"`+Kustomization+`"},
		"spec":{"interval":"10m","path":"./apps","prune":true,"sourceRef":{"kind":"GitRepository","name":"infra"}},
		"status":{"observedGeneration":1,"conditions":[`+cond+`]}}`)
	testcluster.Create(t, dyn, tofu.Terraforms[0], ns, `{"apiVersion":"infra.contrib.fluxcd.io/v1alpha2","kind":"Terraform","metadata":{"name":"`+Terraform+`"},
		"spec":{"interval":"10m","path":"./","sourceRef":{"kind":"GitRepository","name":"infra"}},
		"status":{"observedGeneration":1,"conditions":[`+cond+`]}}`)
	testcluster.Create(t, dyn, argocd.Applications, ns, `{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"`+Application+`",
		"annotations":{"driftdeck.io/paused-by":"mallory \u001b[H","driftdeck.io/paused-reason":`+string(msg)+`,"driftdeck.io/paused-mode":"auto-sync",
			"driftdeck.io/paused-previous":"{\"selfHeal\":true}","driftdeck.io/paused-at":"2026-11-29T10:00:00Z"}},
		"spec":{"project":"default","source":{"repoURL":"https://git.example.com/a.git","path":"web"},"destination":{"server":"https://kubernetes.default.svc","namespace":"web"}}}`)
}
