package argoapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http/httptrace"
	"net/url"
	"runtime"
	"strings"
	"sync"

	"github.com/driftdeck/driftdeck/backend/kube"
)

// Event is one change of the live feed: ADDED, MODIFIED or DELETED.
type Event struct {
	Type string
	App  map[string]any
}

// Decoder decodes one Application's JSON (argocd.DecodeSlim keeps what
// the model reads); nil, or one that fails, decodes it whole. A list's
// items are decoded on several goroutines at once.
type Decoder func([]byte) (map[string]any, error)

func (d Decoder) app(raw []byte) (map[string]any, error) {
	if d != nil {
		if app, err := d(raw); err == nil {
			return app, nil
		}
	}
	var app map[string]any
	err := json.Unmarshal(raw, &app)
	return app, err
}

// Filter limits the Applications read, the list and the feed alike, as
// argocd app list -p and -l do: argocd-server leaves the others out.
type Filter struct {
	Projects []string // none: every project
	Selector string   // a label selector; empty: every label
}

func (f Filter) query() url.Values {
	q := url.Values{}
	for _, p := range f.Projects {
		q.Add("projects", p)
	}
	if f.Selector != "" {
		q.Set("selector", f.Selector)
	}
	return q
}

// Only limits the Applications the client reads to filter.
func (c *Client) Only(filter Filter) { c.only = filter }

// ListApplications lists every Application the user may get, each decoded
// by decode and made into what keep returns. argocd-server sends its list
// only once it has marshalled all of it, so the user waits for the
// client's work after the server's: it is done on every core as the list
// is read (keep runs on several goroutines at once), and neither the list
// nor its decoded maps are held whole.
func ListApplications[T any](ctx context.Context, c *Client, decode Decoder, keep func(app map[string]any) T) ([]T, error) {
	resp, err := c.get(ctx, c.requests, c.only.query(), "api", "v1", "applications")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	kept, err := decodeOnEveryCore(io.LimitReader(resp.Body, maxAnswer), decode, keep)
	if err != nil {
		return nil, fmt.Errorf("Argo CD API server %s: the list of Applications is not the expected JSON: %w", c.cfg.Server, err)
	}
	return kept, nil
}

// decodeOnEveryCore decodes a list's items and keeps each on every core
// while it is read, in the list's order. Each item is cut out by the
// scanner the Kubernetes route uses, so it is not scanned twice by
// encoding/json.
func decodeOnEveryCore[T any](r io.Reader, decode Decoder, keep func(map[string]any) T) ([]T, error) {
	type slot struct {
		raw  *[]byte
		kept T
		err  error
	}
	jobs := make(chan *slot, 64)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for s := range jobs {
				app, err := decode.app(*s.raw)
				rawBuffers.Put(s.raw) // the decoded app keeps none of it
				s.raw = nil
				if s.err = err; err == nil {
					s.kept = keep(app)
				}
			}
		})
	}
	var slots []*slot
	err := kube.EachListItem(r, func(raw []byte) error {
		buf := rawBuffers.Get().(*[]byte) // raw is the reader's buffer
		*buf = append((*buf)[:0], raw...)
		s := &slot{raw: buf}
		slots = append(slots, s)
		jobs <- s
		return nil
	})
	close(jobs)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	kept := make([]T, len(slots))
	for i, s := range slots {
		if s.err != nil {
			return nil, s.err
		}
		kept[i] = s.kept
	}
	return kept, nil
}

// rawBuffers hold the items on their way to the decoders: a list of
// thousands allocates a few dozen of them, not one per item.
var rawBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxEvent bounds one event of the feed (one Application, its status with
// every resource included).
const maxEvent = 64 << 20

// WatchOptions say where the live feed starts and what it sends.
type WatchOptions struct {
	// From is the resourceVersion to start from. From none the server
	// first sends every Application as it is now (ADDED); from one it
	// sends none and subscribes at once, passing on the changes of
	// Applications at that version or later. The changes made before it
	// subscribed are never sent: argocd-server keeps no history.
	From string
	// Fields are the paths of each Application to send (argocd-server's
	// fields parameter, e.g. status.sync); none sends them whole. The
	// server also leaves out an event that changes none of them.
	Fields []string
	// Sent, when set, is called once the request is written. The answer
	// begins with the first event, so its return is no sign of the
	// subscription.
	Sent func()
}

// Watch streams the changes to fn until ctx ends (nil) or the stream
// breaks (why). Events of Applications the user may not get are not sent
// by the server.
func (c *Client) Watch(ctx context.Context, opts WatchOptions, decode Decoder, fn func(Event)) error {
	q := c.only.query()
	if opts.From != "" {
		q.Set("resourceVersion", opts.From)
	}
	if len(opts.Fields) > 0 {
		fields := []string{"result.type"}
		for _, f := range opts.Fields {
			fields = append(fields, "result.application."+f)
		}
		q.Set("fields", strings.Join(fields, ","))
	}
	if opts.Sent != nil {
		var once sync.Once
		ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { once.Do(opts.Sent) }})
	}
	resp, err := c.get(ctx, c.stream, q, "api", "v1", "stream", "applications")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	err = c.eachResult(resp.Body, maxEvent, "the live feed", func(raw json.RawMessage) error {
		var result struct {
			Type        string          `json:"type"`
			Application json.RawMessage `json:"application"`
		}
		if err := json.Unmarshal(raw, &result); err != nil {
			return err
		}
		if len(result.Application) == 0 || string(result.Application) == "null" {
			return nil
		}
		app, err := decode.app(result.Application)
		if err != nil {
			return fmt.Errorf("an Application: %w", err)
		}
		fn(Event{Type: result.Type, App: app})
		return nil
	})
	if err == nil || ctx.Err() != nil {
		return nil
	}
	if errors.Is(err, errStreamEnded) {
		return fmt.Errorf("Argo CD API server %s: the live feed ended", c.cfg.Server)
	}
	return err
}
