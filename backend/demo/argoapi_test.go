package demo

import (
	"bytes"
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/argodiff"
)

func TestArgoAPIServesDiffsThroughTheRealClient(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := Start(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := ArgoAPI(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	app, err := c.Dynamic.Resource(argocd.Applications).Namespace("argocd").Get(ctx, "search-indexer", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := argodiff.NewSource(argodiff.Options{Server: cfg}).Diff(ctx, app.Object, c)
	if err != nil {
		t.Fatal(err)
	}
	if res.Report.Modified == 0 || res.SyncRevision == "" || !strings.Contains(res.Source, "Argo CD API") {
		t.Fatalf("report %+v from %s", res.Report, res.Source)
	}
	var out bytes.Buffer
	if err := res.Report.WriteUnified(&out, 3); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "+  FEATURE_FLAGS: checkout-v2=true") {
		t.Fatalf("the out-of-sync ConfigMap's change is missing:\n%s", out.String())
	}
	wrong := argodiff.NewServerConfig(cfg.Server, "not-the-token")
	wrong.PlainText = true
	if _, err := argodiff.NewSource(argodiff.Options{Server: wrong}).Diff(ctx, app.Object, c); err == nil {
		t.Fatal("a wrong token must be refused")
	}
}
