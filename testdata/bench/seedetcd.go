package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/driftdeck/driftdeck/testdata/bench/fleetgen"
)

// Writing tens of thousands of objects through the API server takes most
// of an hour on two cores (a create, then a status write, each through
// admission, validation and the watch cache): the largest estates are
// written into etcd directly, as the API server would store them, in
// transactions through etcd's JSON gateway. The API server's watch cache
// takes them from etcd's watch like any other write.
const (
	// etcd refuses a transaction of more than 128 operations and a request
	// of more than 1.5 MiB by default.
	etcdTxnOps   = 128
	etcdTxnBytes = 1 << 20
	etcdWorkers  = 4
)

// seedEtcd writes the fleet's objects (status included) into etcd under the
// keys the API server keeps them at; the namespaces are made through the
// API server first (core objects are stored as protobuf).
func seedEtcd(ctx context.Context, cp *controlPlane, size fleetSize, now time.Time) (seedResult, error) {
	start := time.Now()
	if err := makeNamespaces(ctx, cp.Config()); err != nil {
		return seedResult{}, err
	}
	w := &etcdWriter{url: cp.cluster.EtcdURL(), now: now, batches: make(chan []etcdPut, etcdWorkers)}
	var wg sync.WaitGroup
	for range etcdWorkers {
		wg.Go(func() { w.send(ctx) })
	}
	produceErr := w.produce(ctx, size)
	close(w.batches)
	wg.Wait()
	if err := errors.Join(produceErr, w.failure(), ctx.Err()); err != nil {
		return seedResult{}, err
	}
	res := seedResult{Duration: time.Since(start), Requests: w.requests.Load(),
		How: fmt.Sprintf("etcd transactions of up to %d objects, %d at a time, until the API server lists them", etcdTxnOps, etcdWorkers)}
	err := waitListed(ctx, cp, size)
	res.Duration = time.Since(start)
	return res, err
}

// waitListed waits until the API server lists every collection whole: it
// takes writes made below it into its watch cache at its own pace (a
// minute and more for 70,000 objects on two cores), and a LIST asked
// meanwhile runs out of its time.
func waitListed(ctx context.Context, cp *controlPlane, size fleetSize) error {
	deadline := time.Now().Add(15 * time.Minute)
	for {
		_, _, err := listAll(ctx, cp.Config(), "", size)
		if err == nil || ctx.Err() != nil {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the API server did not list the fleet written into etcd within 15 minutes: %w", err)
		}
		logf("the API server does not list the fleet whole yet (%v); asking again", err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Second):
		}
	}
}

type etcdPut struct{ key, value []byte }

type etcdWriter struct {
	url      string
	now      time.Time
	batches  chan []etcdPut
	requests atomic.Int64
	mu       sync.Mutex
	err      error // the first failure
	batch    []etcdPut
	bytes    int
}

// produce hands every object of the fleet to the senders, in batches.
func (w *etcdWriter) produce(ctx context.Context, size fleetSize) error {
	var err error
	put := func(group, resource string, obj map[string]any) {
		if err == nil {
			err = w.add(ctx, group, resource, obj)
		}
	}
	for _, set := range fleetgen.AppSets(size.apps) {
		obj, status := fleetgen.ApplicationSet(set[0], set[1], w.now)
		obj["status"] = status
		put("argoproj.io", "applicationsets", obj)
	}
	for i := range size.largest() {
		if i < size.apps {
			put("argoproj.io", "applications", fleetgen.Application(i, w.now))
		}
		if i < size.stacks {
			stack, stackStatus, update, updateStatus := fleetgen.Stack(i, w.now)
			// Their statuses are merge patches of the status subresource.
			stack["status"], update["status"] = stackStatus["status"], updateStatus["status"]
			put("auto.pulumi.com", "updates", update)
			put("pulumi.com", "stacks", stack)
		}
		if i < size.kustomizations {
			obj, status := fleetgen.Kustomization(i, w.now)
			obj["status"] = status
			put("kustomize.toolkit.fluxcd.io", "kustomizations", obj)
		}
		if i < size.helmReleases {
			obj, status := fleetgen.HelmRelease(i, w.now)
			obj["status"] = status
			put("helm.toolkit.fluxcd.io", "helmreleases", obj)
		}
		if i < size.terraforms {
			obj, status := fleetgen.Terraform(i, w.now)
			obj["status"] = status
			put("infra.contrib.fluxcd.io", "terraforms", obj)
		}
		if err != nil {
			return err
		}
	}
	return w.flush(ctx)
}

// add stamps obj with what the API server would give it on create and
// queues it.
func (w *etcdWriter) add(ctx context.Context, group, resource string, obj map[string]any) error {
	meta := obj["metadata"].(map[string]any)
	ns, name := meta["namespace"].(string), meta["name"].(string)
	if _, ok := meta["uid"]; !ok {
		meta["uid"] = fleetgen.UID(group, resource, ns, name)
	}
	if _, ok := meta["creationTimestamp"]; !ok {
		meta["creationTimestamp"] = w.now.UTC().Format(time.RFC3339)
	}
	if _, ok := meta["generation"]; !ok {
		meta["generation"] = 1
	}
	value, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	key := []byte("/registry/" + group + "/" + resource + "/" + ns + "/" + name)
	if len(w.batch) == etcdTxnOps || w.bytes+len(value) > etcdTxnBytes {
		if err := w.flush(ctx); err != nil {
			return err
		}
	}
	w.batch = append(w.batch, etcdPut{key, value})
	w.bytes += len(key) + len(value)
	return nil
}

func (w *etcdWriter) flush(ctx context.Context) error {
	if len(w.batch) == 0 {
		return nil
	}
	select {
	case w.batches <- w.batch:
	case <-ctx.Done():
		return ctx.Err()
	}
	w.batch, w.bytes = nil, 0
	return w.failure()
}

// send writes each batch in one transaction.
func (w *etcdWriter) send(ctx context.Context) {
	for batch := range w.batches {
		if w.failure() != nil {
			continue
		}
		if err := w.txn(ctx, batch); err != nil {
			w.mu.Lock()
			if w.err == nil {
				w.err = err
			}
			w.mu.Unlock()
		}
	}
}

func (w *etcdWriter) failure() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

func (w *etcdWriter) txn(ctx context.Context, batch []etcdPut) error {
	type put struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	}
	type op struct {
		RequestPut put `json:"request_put"`
	}
	ops := make([]op, len(batch))
	for i, p := range batch {
		ops[i] = op{put{base64.StdEncoding.EncodeToString(p.key), base64.StdEncoding.EncodeToString(p.value)}}
	}
	body, err := json.Marshal(map[string]any{"success": ops})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(w.url, "/")+"/v3/kv/txn", bytes.NewReader(body))
	if err != nil {
		return err
	}
	w.requests.Add(1)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("etcd transaction: %w", err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("etcd transaction: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("etcd transaction of %d objects: %s: %s", len(batch), resp.Status, answer)
	}
	var got struct {
		Succeeded bool `json:"succeeded"`
	}
	if err := json.Unmarshal(answer, &got); err != nil || !got.Succeeded {
		return fmt.Errorf("etcd transaction of %d objects did not succeed: %s", len(batch), answer)
	}
	return nil
}
