// Package logs streams pod logs for driftdeck: the pod a unit's log comes
// from (a Pulumi operator v2 Stack's workspace pod, the Job pods of an Argo
// CD operation's hooks, a Terraform's runner pod, the Flux controller's pod
// narrowed to a Flux unit's lines, or a pod named outright), each line masked for the
// values of the Secrets the pod references and made safe for a terminal.
package logs

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/driftdeck/driftdeck/backend/argoapi"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
)

// PodRef names one pod in one context.
type PodRef struct {
	Context, Namespace, Name string
	// App is the Application whose Argo CD API server serves the pod's
	// log, on a context whose Applications go that way; zero: the pod's
	// log is read through the Kubernetes API.
	App model.Key
}

func (p PodRef) String() string { return "pod/" + p.Namespace + "/" + p.Name }

// Target is a pod whose log answers a question, with the containers to
// choose from and the one that answers it.
type Target struct {
	Pod        PodRef
	Containers []string
	// Container is the one to show first: the workspace's "pulumi", a
	// Job's only container.
	Container string
	// Why says what this pod is to the unit ("workspace pod of Update
	// x-1a2b (running)", "pod of Sync hook Job y (Running)"); empty for a
	// pod named directly.
	Why string
	// About is set for a controller's pod (a Flux unit's): its log is
	// read narrowed to the lines about the unit (Options.About).
	About *About
}

// Options choose what part of a container's log to stream, as kubectl logs.
type Options struct {
	Container string
	Follow    bool
	// Previous is the log of the container's last terminated instance.
	Previous bool
	// Since limits to the lines newer than this; 0 is all.
	Since time.Duration
	// Tail is how many of the last lines to start with; negative is all.
	Tail int64
	// Timestamps prefixes each line with the time the runtime got it.
	Timestamps bool
	// About keeps only a controller's lines about one object, each made
	// readable; Tail and Since count the lines before they are narrowed.
	About *About
}

// Line is one line of a log, masked and escaped: safe to print as is.
// A Notice is driftdeck's own word about the stream (what it could not
// mask, why the stream ended), not a line of the pod's.
type Line struct {
	Text   string
	Notice bool
}

// Source is what the views use: which pods a unit's log comes from, a pod
// named directly, and the stream.
type Source interface {
	Targets(ctx context.Context, unit model.Key) ([]Target, error)
	Pod(ctx context.Context, p PodRef) (Target, error)
	Stream(ctx context.Context, p PodRef, o Options, each func(Line)) error
}

// Opener opens a container's raw log. The API server's pods/log is the
// real one; the demo has its own.
type Opener interface {
	Open(ctx context.Context, c *kube.Cluster, p PodRef, o Options) (io.ReadCloser, error)
}

// Service is the Source over connected clusters.
type Service struct {
	Cluster func(context string) (*kube.Cluster, bool)
	// Destination finds the cluster of an Application's destination, the
	// resource tree's mapping (livetree.Destinations.Resolve): nil and where
	// when no connected context reaches it. Nil: only the in-cluster
	// destination is reached.
	Destination func(app map[string]any, own *kube.Cluster) (c *kube.Cluster, where string)
	// Open is nil for the API server's pods/log (kubelet behind it).
	Open Opener
	// ArgoAPI is the Argo CD API server of a context whose Applications
	// are read through it: their pods' logs are read through it too.
	ArgoAPI func(context string) (*argoapi.Client, bool)
}

var _ Source = (*Service)(nil)

func (s *Service) cluster(name string) (*kube.Cluster, error) {
	c, ok := s.Cluster(name)
	if !ok {
		return nil, fmt.Errorf("context %q is not connected", name)
	}
	return c, nil
}

func (s *Service) opener() Opener {
	if s.Open != nil {
		return s.Open
	}
	return apiServerLogs{}
}
