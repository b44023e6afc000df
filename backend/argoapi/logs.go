package argoapi

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
)

// LogQuery is a pod's log as argocd-server reads it (kubectl logs'
// options); the pod must be in the Application's resource tree.
type LogQuery struct {
	Namespace, Pod, Container string
	Follow, Previous          bool
	SinceSeconds, TailLines   int64 // 0: all
}

// LogEntry is one line of a pod's log through the API server: the line
// (the kubelet's timestamp taken off) and that timestamp.
type LogEntry struct {
	Content string `json:"content"`
	Time    string `json:"timeStampStr"`
	Last    bool   `json:"last"`
}

// maxLogEntry bounds one line of a log as the server sends it.
const maxLogEntry = 1 << 20

// PodLogs streams a pod's log through argocd-server (GET
// .../applications/{name}/logs), under the user's Argo CD RBAC (get on
// the Application, get on logs), to fn, until the server sends its last
// entry, the stream breaks or ctx ends. argocd-server reads it from the
// Application's destination cluster, so no kube access is needed; it
// sends nothing at all for a pod that is not in the Application's resource
// tree, and a kubelet's refusal as a line of the log.
func (c *Client) PodLogs(ctx context.Context, a App, q LogQuery, fn func(LogEntry)) error {
	query := a.query()
	query.Set("namespace", q.Namespace)
	query.Set("podName", q.Pod)
	if q.Container != "" {
		query.Set("container", q.Container)
	}
	query.Set("follow", strconv.FormatBool(q.Follow))
	if q.Previous {
		query.Set("previous", "true")
	}
	if q.SinceSeconds > 0 {
		query.Set("sinceSeconds", strconv.FormatInt(q.SinceSeconds, 10))
	}
	if q.TailLines > 0 {
		query.Set("tailLines", strconv.FormatInt(q.TailLines, 10))
	}
	resp, err := c.get(ctx, c.stream, query, a.path("logs")...)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	err = c.eachResult(resp.Body, maxLogEntry, "the log of pod "+q.Namespace+"/"+q.Pod, func(raw json.RawMessage) error {
		var e LogEntry
		if err := json.Unmarshal(raw, &e); err != nil {
			return err
		}
		if e.Last {
			return errLast
		}
		fn(e)
		return nil
	})
	if ctx.Err() != nil || errors.Is(err, errStreamEnded) {
		return nil
	}
	return err
}
