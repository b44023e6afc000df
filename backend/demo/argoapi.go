package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/argodiff"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/objread"
)

// demoToken is what the demo's Argo CD API server accepts: it guards
// nothing, but keeps the client's authentication path the real one.
const demoToken = "demo-token"

// ArgoAPI serves the Argo CD API's managed-resources endpoint for the demo's
// Applications on a loopback port until ctx ends, and returns the
// configuration to reach it. Each managed resource gets a live and a
// predicted state; the resources the app reports OutOfSync differ in what
// such a change usually is (an image tag, replicas, a config value), so the
// diff screen shows what a sync would change, through the same client code
// as a real server.
func ArgoAPI(ctx context.Context, c *kube.Cluster) (*argodiff.ServerConfig, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("demo Argo CD API: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/applications/{name}/managed-resources", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+demoToken {
			http.Error(w, `{"error":"invalid session","code":16}`, http.StatusUnauthorized)
			return
		}
		ns := r.URL.Query().Get("appNamespace")
		app, err := c.Dynamic.Resource(argocd.Applications).Namespace(ns).Get(r.Context(), r.PathValue("name"), metav1.GetOptions{})
		if err != nil {
			http.Error(w, `{"error":"application not found","code":5}`, http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"items": managedResources(app.Object)})
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return
		}
	}()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	cfg := argodiff.NewServerConfig(ln.Addr().String(), demoToken)
	cfg.PlainText, cfg.From = true, "the demo control plane"
	return cfg, nil
}

// managedResources answers like ManagedResourcesResponse.items: every state
// an object as a JSON string.
func managedResources(app map[string]any) []map[string]any {
	r := objread.New(app)
	rev := r.Str("status", "sync", "revision")
	var out []map[string]any
	for _, res := range r.Objects("status", "resources") {
		kind, ns, name := res.Str("kind"), res.Str("namespace"), res.Str("name")
		live := liveObject(res.Str("group"), kind, ns, name)
		if live == nil {
			continue
		}
		predicted := live
		switch {
		case r.Str("metadata", "name") == appPaused && kind == "Deployment" && name == appPaused:
			live = handFix(live)
		case res.Str("status") == "OutOfSync":
			predicted = changed(live, rev)
		}
		if prune, _ := res.Bool("requiresPruning"); prune {
			predicted = nil
		}
		out = append(out, map[string]any{
			"group": res.Str("group"), "kind": kind, "namespace": ns, "name": name,
			"liveState": encode(live), "normalizedLiveState": encode(live),
			"targetState": encode(predicted), "predictedLiveState": encode(predicted),
		})
	}
	return out
}

// liveObject is a plausible live object of a kind the demo deploys.
func liveObject(group, kind, ns, name string) map[string]any {
	meta := map[string]any{"name": name, "namespace": ns, "labels": map[string]any{"app.kubernetes.io/name": name}}
	apiVersion := "v1"
	if group != "" {
		apiVersion = group + "/v1"
	}
	obj := map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": meta}
	switch kind {
	case "Deployment", "StatefulSet":
		obj["spec"] = map[string]any{
			"replicas": int64(3),
			"template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{
				"name": name, "image": "registry.example.com/" + name + ":1.41.2",
				"resources": map[string]any{"limits": map[string]any{"memory": "512Mi"}},
			}}}},
		}
	case "Service":
		obj["spec"] = map[string]any{"ports": []any{map[string]any{"port": int64(80), "targetPort": int64(8080)}}}
	case "ConfigMap":
		obj["data"] = map[string]any{"LOG_LEVEL": "info", "FEATURE_FLAGS": "checkout-v2=false"}
	case "Secret":
		obj["data"] = map[string]any{"password": "c2VjcmV0LXZhbHVl"}
	default:
		obj["spec"] = map[string]any{}
	}
	return obj
}

// changed is what the source now wants: a new image, one more replica, a
// flipped flag.
func changed(live map[string]any, rev string) map[string]any {
	b, _ := json.Marshal(live)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	tag := "1.42.0"
	if len(rev) >= 7 {
		tag += "-" + rev[:7]
	}
	switch out["kind"] {
	case "Deployment", "StatefulSet":
		spec := out["spec"].(map[string]any)
		spec["replicas"] = float64(4)
		c := spec["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
		c["image"] = strings.Replace(c["image"].(string), "1.41.2", tag, 1)
	case "ConfigMap":
		out["data"].(map[string]any)["FEATURE_FLAGS"] = "checkout-v2=true"
	case "Secret":
		out["data"].(map[string]any)["password"] = "bmV3LXNlY3JldA=="
	default:
		out["metadata"].(map[string]any)["labels"].(map[string]any)["driftdeck.demo/rev"] = tag
	}
	return out
}

// handFix is the paused app's Deployment as the on-call left it: scaled to
// zero by hand.
func handFix(live map[string]any) map[string]any {
	b, _ := json.Marshal(live)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	out["spec"].(map[string]any)["replicas"] = float64(0)
	return out
}

func encode(obj map[string]any) string {
	if obj == nil {
		return "null"
	}
	b, _ := json.Marshal(obj)
	return string(b)
}
