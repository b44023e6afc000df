package logs

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/safetext"
)

// MaxLineBytes cuts longer lines: one line of a log must not hold the
// memory a whole buffer is allowed.
const MaxLineBytes = 16 << 10

// apiServerLogs reads pods/log: the API server proxies it from the kubelet
// of the pod's node.
type apiServerLogs struct{}

func (apiServerLogs) Open(ctx context.Context, c *kube.Cluster, p PodRef, o Options) (io.ReadCloser, error) {
	return c.Kube.CoreV1().Pods(p.Namespace).GetLogs(p.Name, podLogOptions(o)).Stream(ctx)
}

func podLogOptions(o Options) *corev1.PodLogOptions {
	opts := &corev1.PodLogOptions{Container: o.Container, Follow: o.Follow, Previous: o.Previous, Timestamps: o.Timestamps}
	if o.Since > 0 {
		secs := int64(max(o.Since.Seconds(), 1))
		opts.SinceSeconds = &secs
	}
	if o.Tail >= 0 {
		tail := o.Tail
		opts.TailLines = &tail
	}
	return opts
}

// Stream hands each line of a container's log to each, masked and escaped,
// until the log ends (or, following, until ctx ends). First come the
// notices of what masking could not cover.
func (s *Service) Stream(ctx context.Context, p PodRef, o Options, each func(Line)) error {
	if api := s.argoRoute(p.App); api != nil {
		return argoStream(ctx, api, p, o, each)
	}
	c, err := s.cluster(p.Context)
	if err != nil {
		return err
	}
	pod, err := c.Kube.CoreV1().Pods(p.Namespace).Get(ctx, p.Name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("reading %s: %w", p, err)
	}
	if o.Container == "" {
		o.Container = defaultContainer(pod)
	}
	m := newMasker(ctx, c, pod)
	for _, n := range m.notices {
		each(Line{Text: safetext.Visible(n), Notice: true})
	}
	rc, err := s.opener().Open(ctx, c, p, o)
	if err != nil {
		return fmt.Errorf("log of %s container %s: %w", p, o.Container, err)
	}
	defer rc.Close()
	err = readLines(rc, func(raw string, cut int) {
		if o.About != nil {
			var about bool
			if raw, about = o.About.ParseLine(raw); !about {
				return
			}
		}
		text := safetext.Visible(m.mask(raw))
		if cut > 0 {
			text += fmt.Sprintf(" … (%d more bytes of this line not shown)", cut)
		}
		each(Line{Text: text})
	})
	if err != nil && ctx.Err() != nil {
		return nil // the viewer closed it
	}
	return err
}

// readLines splits r into lines of at most MaxLineBytes, reporting how much
// of a longer line was cut.
func readLines(r io.Reader, each func(line string, cut int)) error {
	br := bufio.NewReaderSize(r, 4096)
	var b strings.Builder
	cut := 0
	for {
		chunk, isPrefix, err := br.ReadLine()
		if len(chunk) > 0 {
			room := MaxLineBytes - b.Len()
			if room >= len(chunk) {
				b.Write(chunk)
			} else {
				b.Write(chunk[:max(room, 0)])
				cut += len(chunk) - max(room, 0)
			}
		}
		if err != nil {
			if b.Len() > 0 || cut > 0 {
				each(b.String(), cut)
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if !isPrefix {
			each(b.String(), cut)
			b.Reset()
			cut = 0
		}
	}
}

// defaultContainer is the container kubectl would pick: the one named by
// the default-container annotation, else the first.
func defaultContainer(pod *corev1.Pod) string {
	if name := pod.Annotations["kubectl.kubernetes.io/default-container"]; name != "" {
		return name
	}
	if len(pod.Spec.Containers) > 0 {
		return pod.Spec.Containers[0].Name
	}
	return ""
}

// containerNames lists init containers first, as they run.
func containerNames(pod *corev1.Pod) []string {
	var out []string
	for _, c := range pod.Spec.InitContainers {
		out = append(out, c.Name)
	}
	for _, c := range pod.Spec.Containers {
		out = append(out, c.Name)
	}
	return out
}
