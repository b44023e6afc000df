package ui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/driftdeck/driftdeck/backend/stackops"
	"github.com/driftdeck/driftdeck/backend/store"
)

const longError = `Get "https://10.0.0.1:6443/apis/argoproj.io/v1alpha1/applications?resourceVersion=4711": dial tcp 10.0.0.1:6443: connect: connection refused (the API server of prod-eu-1 is unreachable; the last list is shown)`

func TestDisconnectErrorIsReadWholeInTheHeader(t *testing.T) {
	a, _ := newTestApp(t, 80, 24)
	a.Update(BatchMsg(store.Batch{Status: []store.ContextStatus{{
		Context: "prod-eu-1", Identity: "oncall@example.com", Since: fixedNow.Add(-time.Minute), LastEvent: fixedNow.Add(-time.Minute), Error: longError,
	}}}))
	if !strings.Contains(squashed(a), squash(longError)) {
		t.Fatalf("the disconnect error is cut:\n%s", plain(a))
	}
	if lines := strings.Split(plain(a), "\n"); len(lines) != 24 {
		t.Fatalf("the screen has %d lines, want 24", len(lines))
	}
}

func TestErrorToastIsReadWhole(t *testing.T) {
	a, _ := newTestApp(t, 80, 24)
	a.toastError("sync argocd/team-payments/payments-api: " + longError)
	if !strings.Contains(squashed(a), squash(longError)) {
		t.Fatalf("the error toast is cut:\n%s", plain(a))
	}
	if lines := strings.Split(plain(a), "\n"); len(lines) != 24 {
		t.Fatalf("the screen has %d lines, want 24", len(lines))
	}
}

func TestPreviewErrorIsReadWhole(t *testing.T) {
	defer func(f func() (string, error)) { findPulumiCLI = f }(findPulumiCLI)
	findPulumiCLI = func() (string, error) { return "/usr/bin/pulumi", nil }
	a, be := newTestApp(t, 80, 24)
	be.preview = func(context.Context, model.Key, func(pulumirun.Event)) (*stackops.Reviewed, error) {
		return nil, errors.New(longError)
	}
	selectUnit(t, a, "edge-cdn")
	press(a, "d")
	if !strings.Contains(squashed(a), squash(longError)) {
		t.Fatalf("the preview error is cut:\n%s", plain(a))
	}
	if strings.Contains(flat(a), "make tools") {
		t.Errorf("with a pulumi CLI at hand the screen must not say how to get one:\n%s", plain(a))
	}
}

// squash drops all white space, so that text wrapped anywhere still matches.
func squash(s string) string { return strings.Join(strings.Fields(s), "") }

func squashed(a *App) string { return squash(plain(a)) }
