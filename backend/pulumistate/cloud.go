package pulumistate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// Cloud is the Pulumi Cloud REST API (or a self-hosted service).
type Cloud struct {
	base  string
	token string // never shown
	HTTP  *http.Client
}

// OpenCloud connects to the service at rawURL with $PULUMI_ACCESS_TOKEN, or
// else the token `pulumi login` stored for that URL.
func OpenCloud(rawURL string) (*Cloud, error) {
	base := strings.TrimRight(rawURL, "/")
	token := os.Getenv("PULUMI_ACCESS_TOKEN")
	if token == "" {
		var err error
		if token, err = storedToken(base); err != nil {
			return nil, err
		}
	}
	if token == "" {
		return nil, fmt.Errorf("no access token for %s: run `pulumi login %s` or set PULUMI_ACCESS_TOKEN", base, base)
	}
	return &Cloud{base: base, token: token, HTTP: &http.Client{Timeout: time.Minute}}, nil
}

// Close does nothing: the client holds no connection of its own.
func (c *Cloud) Close() error { return nil }

func stackPath(ref StackRef, rest ...string) string {
	p := "/api/stacks/" + url.PathEscape(ref.Org) + "/" + url.PathEscape(ref.Project) + "/" + url.PathEscape(ref.Stack)
	for _, r := range rest {
		p += "/" + url.PathEscape(r)
	}
	return p
}

// call sends a request and decodes the JSON answer into out (when not nil).
func (c *Cloud) call(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "token "+c.token)
	req.Header.Set("Accept", "application/vnd.pulumi+9")
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		var e errorResponse
		if json.Unmarshal(data, &e) != nil || e.Message == "" {
			e.Message = http.StatusText(resp.StatusCode)
		}
		return fmt.Errorf("%s %s: [%d] %s", method, path, resp.StatusCode, e.Message)
	}
	if out == nil || len(data) == 0 {
		return nil
	}
	return json.Unmarshal(data, out)
}

// Stacks lists the stacks the token can see, with their last update time
// and resource count (Partial: no locks or pending operations).
func (c *Cloud) Stacks(ctx context.Context) ([]StackInfo, error) {
	var out []StackInfo
	token := ""
	for {
		path := "/api/user/stacks"
		if token != "" {
			path += "?continuationToken=" + url.QueryEscape(token)
		}
		var resp listStacksResponse
		if err := c.call(ctx, http.MethodGet, path, nil, &resp); err != nil {
			return nil, err
		}
		for _, s := range resp.Stacks {
			info := StackInfo{Ref: StackRef{Org: s.OrgName, Project: s.ProjectName, Stack: s.StackName}, Resources: -1, Partial: true}
			if s.ResourceCount != nil {
				info.Resources = *s.ResourceCount
			}
			if s.LastUpdate != nil {
				info.LastUpdate = &Update{End: time.Unix(*s.LastUpdate, 0)}
			}
			out = append(out, info)
		}
		if resp.ContinuationToken == nil || *resp.ContinuationToken == "" {
			return out, nil
		}
		token = *resp.ContinuationToken
	}
}

// Stack reads a stack, its latest update, its in-progress operation and
// the pending operations of its state.
func (c *Cloud) Stack(ctx context.Context, ref StackRef) (StackInfo, error) {
	info := StackInfo{Ref: ref, Resources: -1}
	var st cloudStack
	if err := c.call(ctx, http.MethodGet, stackPath(ref), nil, &st); err != nil {
		return info, err
	}
	if op := st.CurrentOperation; op != nil {
		info.Locks = []Lock{{ID: st.ActiveUpdate, User: op.Author, Kind: op.Kind, Since: time.Unix(op.Started, 0), Holder: HolderUnknown}}
	}
	var hist getHistoryResponse
	if err := c.call(ctx, http.MethodGet, stackPath(ref, "updates")+"?pageSize=1&page=1", nil, &hist); err != nil {
		return info, err
	}
	if len(hist.Updates) > 0 {
		u := hist.Updates[0]
		info.LastUpdate = &Update{
			ID: fmt.Sprint(u.Version), Kind: u.Kind, Result: u.Result, Message: u.Message,
			Start: time.Unix(u.StartTime, 0), Changes: map[string]int{},
		}
		if u.EndTime > 0 {
			info.LastUpdate.End = time.Unix(u.EndTime, 0)
		}
		maps.Copy(info.LastUpdate.Changes, u.ResourceChanges)
	}
	_, dep, err := c.export(ctx, ref)
	if err != nil {
		return info, err
	}
	info.Resources, info.Pending = len(dep.Resources), pendingOps(dep)
	return info, nil
}

func (c *Cloud) export(ctx context.Context, ref StackRef) (untypedDeployment, *deployment, error) {
	var exp untypedDeployment
	if err := c.call(ctx, http.MethodGet, stackPath(ref, "export"), nil, &exp); err != nil {
		return exp, nil, err
	}
	dep := &deployment{}
	if len(exp.Deployment) > 0 {
		if err := json.Unmarshal(exp.Deployment, dep); err != nil {
			return exp, nil, fmt.Errorf("export of %s: %w", ref, err)
		}
	}
	return exp, dep, nil
}

// BreakLock plans cancelling the stack's in-progress update, as `pulumi
// cancel` does. The service does not say whether its client still runs,
// so force changes nothing here.
func (c *Cloud) BreakLock(ctx context.Context, ref StackRef, _ bool) (*Repair, error) {
	info, err := c.Stack(ctx, ref)
	if err != nil {
		return nil, err
	}
	if len(info.Locks) == 0 {
		return nil, fmt.Errorf("stack %s has no update in progress: %w", ref, ErrNothingToDo)
	}
	l := info.Locks[0]
	cancel := stackPath(ref, "update", l.ID, "cancel")
	r := &Repair{
		Summary: fmt.Sprintf("cancel the in-progress %s of %s", l.Kind, ref),
		Changes: []string{fmt.Sprintf("POST %s: update %s (%s by %s, started %s, %s ago)",
			cancel, l.ID, l.Kind, l.User, l.Since.Format(time.RFC3339), l.Age(time.Now()).Round(time.Second))},
	}
	r.apply = func(ctx context.Context) error {
		var st cloudStack
		if err := c.call(ctx, http.MethodGet, stackPath(ref), nil, &st); err != nil {
			return err
		}
		if st.CurrentOperation == nil || st.ActiveUpdate != l.ID {
			return fmt.Errorf("stack %s: update %s is no longer in progress: nothing cancelled", ref, l.ID)
		}
		return c.call(ctx, http.MethodPost, cancel, nil, nil)
	}
	return r, nil
}

// RemoveTorn has nothing to do: the service keeps no sidecar files.
func (c *Cloud) RemoveTorn(_ context.Context, ref StackRef) (*Repair, error) {
	return nil, fmt.Errorf("stack %s: %w", ref, ErrNothingToDo)
}

// ClearPending plans exporting the stack's state and importing it again
// without its pending operations (what `pulumi stack export | pulumi stack
// import` does); the service records the import as an update.
func (c *Cloud) ClearPending(ctx context.Context, ref StackRef) (*Repair, error) {
	info, err := c.Stack(ctx, ref)
	if err != nil {
		return nil, err
	}
	if len(info.Pending) == 0 {
		return nil, fmt.Errorf("stack %s has no pending operations: %w", ref, ErrNothingToDo)
	}
	if len(info.Locks) > 0 {
		return nil, fmt.Errorf("stack %s has update %s in progress: cancel it first", ref, info.Locks[0].ID)
	}
	exp, _, err := c.export(ctx, ref)
	if err != nil {
		return nil, err
	}
	cleared, found, err := withoutMember(exp.Deployment, "pending_operations")
	if err != nil || !found {
		return nil, fmt.Errorf("export of %s: pending_operations not where expected (%v)", ref, err)
	}
	r := &Repair{Summary: fmt.Sprintf("clear %d pending operation(s) of %s", len(info.Pending), ref)}
	for _, op := range info.Pending {
		r.Changes = append(r.Changes, "forget "+op.Type+" "+op.URN)
	}
	r.Changes = append(r.Changes, "POST "+stackPath(ref, "import")+": the exported state without pending_operations (a new state version)")
	r.apply = func(ctx context.Context) error {
		now, _, err := c.export(ctx, ref)
		if err != nil {
			return err
		}
		if !bytes.Equal(now.Deployment, exp.Deployment) {
			return errors.New("the stack's state changed since it was shown: nothing imported")
		}
		body := untypedDeployment{Version: exp.Version, Features: exp.Features, Deployment: cleared}
		var resp importStackResponse
		return c.call(ctx, http.MethodPost, stackPath(ref, "import"), body, &resp)
	}
	return r, nil
}
