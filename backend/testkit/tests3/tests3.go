// Package tests3 runs a real S3-compatible server (versitygw,
// DRIFTDECK_VERSITYGW) over a temporary directory, for the s3 state
// backends of OpenTofu and Pulumi without a cloud.
package tests3

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/testkit/syncbuf"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// Server is a running versitygw whose buckets are directories of Dir.
type Server struct {
	Endpoint             string // http://127.0.0.1:PORT
	AccessKey, SecretKey string
	Dir                  string
}

// Start runs versitygw with the buckets named; it stops with the test.
func Start(t testing.TB, buckets ...string) *Server {
	t.Helper()
	bin := testcluster.Tool(t, "DRIFTDECK_VERSITYGW", "versitygw")
	dir := t.TempDir()
	for _, b := range buckets {
		if err := os.Mkdir(filepath.Join(dir, b), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	s := &Server{Endpoint: "http://" + addr, AccessKey: "driftdeck", SecretKey: "driftdeck-secret", Dir: dir}
	cmd := exec.Command(bin, "--port", addr, "posix", dir)
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY="+s.AccessKey, "ROOT_SECRET_KEY="+s.SecretKey)
	out := &syncbuf.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-exited })
	deadline := time.Now().Add(30 * time.Second)
	for {
		// Any HTTP answer (an S3 error for an unsigned request) says it serves.
		if resp, err := http.Get(s.Endpoint); err == nil {
			resp.Body.Close()
			return s
		}
		select {
		case <-exited:
			t.Fatalf("versitygw exited: %s", out.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("versitygw did not serve within 30s: %s", out.String())
		}
	}
}

// Env are the AWS variables that reach the server with its keys.
func (s *Server) Env() []string {
	return []string{"AWS_ACCESS_KEY_ID=" + s.AccessKey, "AWS_SECRET_ACCESS_KEY=" + s.SecretKey, "AWS_REGION=us-east-1"}
}

// TofuBackend is an OpenTofu s3 backend block on the server, with the
// lockfile.
func (s *Server) TofuBackend(bucket, key string) string {
	return fmt.Sprintf(`
terraform {
  backend "s3" {
    bucket                      = %q
    key                         = %q
    region                      = "us-east-1"
    endpoints                   = { s3 = %q }
    use_path_style              = true
    use_lockfile                = true
    skip_credentials_validation = true
    skip_requesting_account_id  = true
    skip_region_validation      = true
    skip_metadata_api_check     = true
  }
}
`, bucket, key, s.Endpoint)
}

// PulumiURL is a Pulumi s3:// backend URL of the bucket on the server.
func (s *Server) PulumiURL(bucket string) string {
	return "s3://" + bucket + "?endpoint=" + s.Endpoint + "&s3ForcePathStyle=true&region=us-east-1"
}
