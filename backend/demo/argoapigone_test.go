package demo

import (
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/argodiff"
)

// diffWithin runs a diff and fails the test if it has not returned within
// d: a diff must end with an answer or an error, never hang.
func diffWithin(t *testing.T, d time.Duration, src argodiff.Source, app map[string]any) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := src.Diff(context.Background(), app, nil)
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("the diff hung for %v with the Argo CD API server gone", d)
		return nil
	}
}

// The Argo CD API server goes away before a diff, and while one is in
// flight: each diff ends at once with an error that names the server and
// what happened.
func TestArgoAPIGoneDuringADiffIsAClearErrorNotAHang(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := Start(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	app, err := c.Dynamic.Resource(argocd.Applications).Namespace("argocd").Get(ctx, "search-indexer", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}

	t.Run("while the diff is in flight", func(t *testing.T) {
		apiCtx, stopAPI := context.WithCancel(ctx)
		defer stopAPI()
		cfg, err := ArgoAPI(apiCtx, c)
		if err != nil {
			t.Fatal(err)
		}
		// In front of it, a link that forwards the request, then stops the
		// server and drops the connection before any answer comes back.
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go func() {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			defer conn.Close()
			up, err := net.Dial("tcp", cfg.Server)
			if err != nil {
				return
			}
			defer up.Close()
			go func() { _, _ = io.Copy(up, conn) }()
			buf := make([]byte, 1)
			_, _ = up.Read(buf) // the server started answering
			stopAPI()
		}()
		front := argodiff.NewServerConfig(ln.Addr().String(), demoToken)
		front.PlainText = true
		t0 := time.Now()
		err = diffWithin(t, 30*time.Second, argodiff.NewSource(argodiff.Options{Server: front}), app.Object)
		t.Logf("in flight: %v after %v", err, time.Since(t0).Round(time.Millisecond))
		if err == nil || !strings.Contains(err.Error(), "Argo CD API server "+front.Server) || !strings.Contains(err.Error(), "closed the connection before answering") {
			t.Fatalf("want an error naming the server and saying it closed the connection, got %v", err)
		}
	})

	t.Run("before the diff", func(t *testing.T) {
		apiCtx, stopAPI := context.WithCancel(ctx)
		cfg, err := ArgoAPI(apiCtx, c)
		if err != nil {
			t.Fatal(err)
		}
		stopAPI()
		for deadline := time.Now().Add(10 * time.Second); ; { // the server closes beside
			conn, err := net.Dial("tcp", cfg.Server)
			if err != nil {
				break
			}
			conn.Close()
			if time.Now().After(deadline) {
				t.Fatal("the stopped server still accepts connections")
			}
			time.Sleep(10 * time.Millisecond)
		}
		t0 := time.Now()
		err = diffWithin(t, 30*time.Second, argodiff.NewSource(argodiff.Options{Server: cfg}), app.Object)
		t.Logf("gone: %v after %v", err, time.Since(t0).Round(time.Millisecond))
		if err == nil || !strings.Contains(err.Error(), "Argo CD API server "+cfg.Server) || !strings.Contains(err.Error(), "connection refused") {
			t.Fatalf("want an error naming the server and the refused connection, got %v", err)
		}
	})
}
