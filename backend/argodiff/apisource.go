package argodiff

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/objread"
)

// APISource asks the Argo CD API server for the diff it computed, the one
// `argocd app diff` and the web UI show. Secrets arrive masked by the server.
type APISource struct {
	Server      *ServerConfig
	DiffOptions diff.Options
	// Client, when set, replaces the HTTP client built from Server.
	Client *http.Client

	// built is the client made from Server, once: a client (a transport)
	// per diff left one kept-alive connection and its goroutines behind
	// per diff opened.
	built struct {
		once   sync.Once
		client *http.Client
		err    error
	}
}

// client is the HTTP client every request of this source shares.
func (s *APISource) client() (*http.Client, error) {
	if s.Client != nil {
		return s.Client, nil
	}
	s.built.once.Do(func() { s.built.client, s.built.err = s.Server.httpClient() })
	return s.built.client, s.built.err
}

// resourceDiff is one item of the ManagedResourcesResponse
// (v1alpha1.ResourceDiff): each state is an object as a JSON string, or
// "null" for a side the object is not on.
type resourceDiff struct {
	Group               string `json:"group"`
	Kind                string `json:"kind"`
	Namespace           string `json:"namespace"`
	Name                string `json:"name"`
	TargetState         string `json:"targetState"`
	LiveState           string `json:"liveState"`
	NormalizedLiveState string `json:"normalizedLiveState"`
	PredictedLiveState  string `json:"predictedLiveState"`
	Hook                bool   `json:"hook"`
}

type managedResourcesResponse struct {
	Items []resourceDiff `json:"items"`
}

// Diff fetches the Application's managed resources and diffs each one's
// normalised live state against its predicted live state (falling back to
// live against target on servers that send neither).
func (s *APISource) Diff(ctx context.Context, app map[string]any, _ *kube.Cluster) (*Result, error) {
	r := objread.New(app)
	name, ns := r.Str("metadata", "name"), r.Str("metadata", "namespace")
	if name == "" {
		return nil, errors.New("the Application has no name")
	}
	// The sync revision is read before asking: if the controller moves on
	// meanwhile, the approval binding refuses rather than trusting a diff of
	// a different revision.
	syncRev := RevisionOf(app)
	items, err := s.managedResources(ctx, name, ns)
	if err != nil {
		return nil, err
	}
	pairs := make([]diff.Pair, 0, len(items))
	for i, it := range items {
		if it.Hook {
			continue
		}
		p, err := it.pair()
		if err != nil {
			return nil, fmt.Errorf("managed resource %d (%s %s/%s): %w", i, it.Kind, it.Namespace, it.Name, err)
		}
		if p.Live != nil || p.Desired != nil {
			pairs = append(pairs, p)
		}
	}
	report, err := diff.Objects(pairs, s.DiffOptions)
	if err != nil {
		return nil, err
	}
	return &Result{Report: report, Revision: syncRev, SyncRevision: syncRev, Source: "Argo CD API " + s.Server.Server}, nil
}

func (it resourceDiff) pair() (diff.Pair, error) {
	liveJSON, desiredJSON := it.NormalizedLiveState, it.PredictedLiveState
	if liveJSON == "" && desiredJSON == "" {
		liveJSON, desiredJSON = it.LiveState, it.TargetState
	}
	p := diff.Pair{Key: diff.ObjectKey{Group: it.Group, Kind: it.Kind, Namespace: it.Namespace, Name: it.Name}}
	var err error
	if p.Live, err = parseState(liveJSON); err != nil {
		return p, fmt.Errorf("live state: %w", err)
	}
	if p.Desired, err = parseState(desiredJSON); err != nil {
		return p, fmt.Errorf("desired state: %w", err)
	}
	return p, nil
}

func parseState(s string) (map[string]any, error) {
	if s == "" || s == "null" {
		return nil, nil
	}
	objs, err := diff.Parse([]byte(s))
	if err != nil || len(objs) == 0 {
		return nil, err
	}
	return objs[0], nil
}

func (s *APISource) managedResources(ctx context.Context, name, namespace string) ([]resourceDiff, error) {
	var query url.Values
	if namespace != "" {
		query = url.Values{"appNamespace": {namespace}}
	}
	req, err := s.Server.Request(ctx, http.MethodGet, query, "api", "v1", "applications", name, "managed-resources")
	if err != nil {
		return nil, err
	}
	client, err := s.client()
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("Argo CD API server %s closed the connection before answering (did it stop or restart?): %w", s.Server, redactURLError(err))
	}
	if err != nil {
		return nil, fmt.Errorf("Argo CD API server %s: %w", s.Server, redactURLError(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return nil, fmt.Errorf("Argo CD API server %s: reading the answer: %w", s.Server.Server, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, s.statusError(resp.StatusCode, body, namespace, name)
	}
	var out managedResourcesResponse
	if err := json.Unmarshal(body, &out); err != nil {
		return nil, fmt.Errorf("Argo CD API server %s: the managed resources answer is not the expected JSON: %w", s.Server.Server, err)
	}
	return out.Items, nil
}

// maxResponse bounds the answer read: managed resources of very large apps
// reach tens of megabytes, anything beyond this is not an Argo CD answer.
const maxResponse = 512 << 20

// statusError turns a refusal into words a user can act on, with the server's
// own message (the gRPC gateway's {"error","message","code"} body).
func (s *APISource) statusError(code int, body []byte, namespace, name string) error {
	var gw struct {
		Message string `json:"message"`
		Error   string `json:"error"`
	}
	_ = json.Unmarshal(body, &gw)
	msg := gw.Message
	if msg == "" {
		msg = gw.Error
	}
	if msg == "" {
		msg = strings.TrimSpace(string(body[:min(len(body), 200)]))
	}
	app := name
	if namespace != "" {
		app = namespace + "/" + name
	}
	server := s.Server.Server
	var hint string
	switch code {
	case http.StatusUnauthorized:
		hint = fmt.Sprintf("the token was rejected (expired or revoked?): run `argocd login %s` or set %s", LoginArgs(server), EnvAuthToken)
	case http.StatusForbidden:
		hint = fmt.Sprintf("permission denied: the token's account may not get application %s (Argo CD RBAC; it also answers this for apps that do not exist)", app)
	case http.StatusNotFound:
		hint = fmt.Sprintf("application %s not found: is %s the Argo CD instance that manages it?", app, server)
	default:
		hint = "request failed"
	}
	if msg != "" {
		hint += " (server says: " + msg + ")"
	}
	return fmt.Errorf("Argo CD API server %s: %d %s: %s", server, code, http.StatusText(code), hint)
}

// httpClient verifies TLS unless the configuration says insecure, trusts the
// configured CA in addition to the system's, and presents the client
// certificate when one is configured.
func (c *ServerConfig) httpClient() (*http.Client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: c.Insecure, MinVersion: tls.VersionTLS12} //nolint:gosec // only when the user's config says insecure
	if len(c.caPEM) > 0 {
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(c.caPEM) {
			return nil, fmt.Errorf("Argo CD server %s: certificate-authority-data holds no PEM certificate", c.Server)
		}
		tr.TLSClientConfig.RootCAs = pool
	}
	if c.clientCert != nil {
		tr.TLSClientConfig.Certificates = []tls.Certificate{*c.clientCert}
	}
	if c.dial != nil {
		tr.Proxy, tr.DialContext = nil, c.dial
	}
	return &http.Client{Transport: tr, Timeout: 2 * time.Minute}, nil
}

// redactURLError drops the URL from a transport error (its message repeats
// the whole request URL) and keeps the cause.
func redactURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("%s: %w", ue.Op, ue.Err)
	}
	return err
}
