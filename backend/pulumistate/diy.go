package pulumistate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/driftdeck/driftdeck/backend/pulumistate/objstore"
	"gopkg.in/yaml.v3"
)

// DIY is a self-managed state bucket (pulumi login file://, s3://, gs://,
// azblob://), read the way the pulumi CLI lays it out under .pulumi/.
type DIY struct {
	bucket objstore.Store
	// legacy: stacks are not grouped by project (.pulumi/meta.yaml absent
	// or version 0, from before pulumi 3.61).
	legacy bool
	host   string
	// name is the bucket in messages: a file:// bucket's path, another's
	// scheme and host.
	name string
}

var stackExts = []string{".json", ".json.gz", ".json.zst"}

// OpenDIY opens the bucket at rawURL: file:// in this process, any other
// scheme through the driftdeck-state helper (package objstore says why).
func OpenDIY(ctx context.Context, rawURL string) (*DIY, error) {
	u, err := bucketURL(rawURL)
	if err != nil {
		return nil, err
	}
	var b objstore.Store
	if strings.HasPrefix(u, "file://") {
		b, err = objstore.OpenBucket(ctx, u)
	} else {
		b, err = dialHelper(ctx, u)
	}
	if err != nil {
		return nil, err
	}
	d, err := openDIYOn(ctx, b)
	if err == nil {
		d.name = bucketName(u)
		if p, ok := strings.CutPrefix(u, "file://"); ok {
			d.name, _, _ = strings.Cut(p, "?")
		}
	}
	return d, err
}

func dialHelper(ctx context.Context, rawURL string) (objstore.Store, error) {
	helper, err := objstore.FindHelper("the state bucket " + bucketName(rawURL))
	if err != nil {
		return nil, err
	}
	return objstore.Dial(ctx, helper, rawURL)
}

// bucketName is the URL without its path and query, which can carry
// settings a message has no need to repeat.
func bucketName(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme == "" {
		return "(unreadable URL)"
	}
	return u.Scheme + "://" + u.Host
}

// openDIYOn reads the layout of the bucket b, which it then owns.
func openDIYOn(ctx context.Context, b objstore.Store) (*DIY, error) {
	d := &DIY{bucket: b}
	d.host, _ = os.Hostname()
	var err error
	if d.legacy, err = d.readLayout(ctx); err != nil {
		b.Close()
		return nil, err
	}
	return d, nil
}

// bucketURL turns a pulumi backend URL into a gocloud one: file:// paths
// may start with ~, and temporary files are written next to their target,
// as the pulumi CLI does.
func bucketURL(rawURL string) (string, error) {
	if !strings.HasPrefix(rawURL, "file://") {
		return rawURL, nil
	}
	p, query, _ := strings.Cut(strings.TrimPrefix(rawURL, "file://"), "?")
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		p = home + p[1:]
	}
	if !strings.Contains(query, "no_tmp_dir") {
		query = strings.TrimPrefix(query+"&no_tmp_dir=true", "&")
	}
	return "file://" + p + "?" + query, nil
}

// readLayout reads .pulumi/meta.yaml: version 1 groups stacks by project.
// Without the file the CLI picks the legacy layout only if legacy stacks
// exist, and so does this.
func (d *DIY) readLayout(ctx context.Context) (legacy bool, err error) {
	body, err := d.bucket.ReadAll(ctx, ".pulumi/meta.yaml")
	if errors.Is(err, objstore.ErrNotFound) {
		keys, err := d.list(ctx, ".pulumi/stacks/", "/")
		for _, k := range keys {
			if _, ok := stackName(path.Base(k)); ok {
				return true, err
			}
		}
		return false, err
	}
	if err != nil {
		return false, err
	}
	var meta struct {
		Version *int `yaml:"version"`
	}
	if err := yaml.Unmarshal(body, &meta); err != nil || meta.Version == nil {
		return false, fmt.Errorf(".pulumi/meta.yaml: no readable version (%v)", err)
	}
	switch *meta.Version {
	case 0:
		return true, nil
	case 1:
		return false, nil
	}
	return false, fmt.Errorf(".pulumi/meta.yaml: layout version %d is newer than driftdeck reads", *meta.Version)
}

// Close releases the bucket.
func (d *DIY) Close() error { return d.bucket.Close() }

// list returns the keys under prefix, sorted; with a delimiter, only one
// level deep.
func (d *DIY) list(ctx context.Context, prefix, delimiter string) ([]string, error) {
	objs, err := d.bucket.List(ctx, prefix, delimiter)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, obj := range objs {
		if !obj.IsDir {
			out = append(out, obj.Key)
		}
	}
	sort.Strings(out)
	return out, nil
}

// stackName strips a stack file's extension.
func stackName(file string) (string, bool) {
	for _, ext := range stackExts {
		if strings.HasSuffix(file, ext) && len(file) > len(ext) {
			return strings.TrimSuffix(file, ext), true
		}
	}
	return "", false
}

// dir is the stack's directory part below .pulumi/<kind>/.
func (d *DIY) dir(ref StackRef) string {
	if d.legacy {
		return ref.Stack
	}
	return ref.Project + "/" + ref.Stack
}

func (d *DIY) lockDir(ref StackRef) string {
	if d.legacy {
		return ".pulumi/locks/" + ref.Stack + "/"
	}
	return ".pulumi/locks/organization/" + ref.Project + "/" + ref.Stack + "/"
}

// checkpointKey finds the stack's file; when several encodings exist the
// CLI uses the newest, and so does this.
func (d *DIY) checkpointKey(ctx context.Context, ref StackRef) (string, error) {
	base := ".pulumi/stacks/" + d.dir(ref)
	objs, err := d.bucket.List(ctx, base+".json", "/")
	if err != nil {
		return "", err
	}
	var best *objstore.Object
	for i, obj := range objs {
		for _, ext := range stackExts {
			if obj.Key == base+ext && (best == nil || !obj.ModTime.Before(best.ModTime)) {
				best = &objs[i]
			}
		}
	}
	if best == nil {
		return "", fmt.Errorf("stack %s: not found", ref)
	}
	return best.Key, nil
}

// Stacks lists every stack with its details.
func (d *DIY) Stacks(ctx context.Context) ([]StackInfo, error) {
	keys, err := d.list(ctx, ".pulumi/stacks/", "")
	if err != nil {
		return nil, err
	}
	seen := map[StackRef]bool{}
	var out []StackInfo
	for _, k := range keys {
		parts := strings.Split(strings.TrimPrefix(k, ".pulumi/stacks/"), "/")
		name, ok := stackName(parts[len(parts)-1])
		if !ok || (d.legacy && len(parts) != 1) || (!d.legacy && len(parts) != 2) {
			continue
		}
		ref := StackRef{Stack: name}
		if !d.legacy {
			ref = StackRef{Org: "organization", Project: parts[0], Stack: name}
		}
		if seen[ref] {
			continue
		}
		seen[ref] = true
		info, err := d.Stack(ctx, ref)
		if err != nil {
			return nil, err
		}
		out = append(out, info)
	}
	return out, nil
}

// Stack reads one stack: checkpoint, locks and last update.
func (d *DIY) Stack(ctx context.Context, ref StackRef) (StackInfo, error) {
	info := StackInfo{Ref: ref, Resources: -1}
	key, err := d.checkpointKey(ctx, ref)
	if err != nil {
		return info, err
	}
	stored, err := d.bucket.ReadAll(ctx, key)
	if err != nil {
		return info, err
	}
	dep, err := readCheckpoint(stored)
	if err != nil {
		return info, fmt.Errorf("%s: %w", key, err)
	}
	info.Resources = len(dep.Resources)
	info.Pending = pendingOps(dep)
	if info.Locks, err = d.locks(ctx, ref); err != nil {
		return info, err
	}
	if info.LastUpdate, err = d.lastUpdate(ctx, ref); err != nil {
		return info, err
	}
	info.Torn, err = d.tornSidecars(ctx, ref)
	return info, err
}

// lockFile is what the pulumi CLI writes to lock a stack.
type lockFile struct {
	PID       int       `json:"pid"`
	Username  string    `json:"username"`
	Hostname  string    `json:"hostname"`
	Timestamp time.Time `json:"timestamp"`
}

func (d *DIY) locks(ctx context.Context, ref StackRef) ([]Lock, error) {
	keys, err := d.list(ctx, d.lockDir(ref), "/")
	if err != nil {
		return nil, err
	}
	var out []Lock
	for _, k := range keys {
		if !strings.HasSuffix(k, ".json") {
			continue
		}
		l, _, err := d.readLock(ctx, k)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

func (d *DIY) readLock(ctx context.Context, key string) (Lock, []byte, error) {
	body, err := d.bucket.ReadAll(ctx, key)
	if err != nil {
		return Lock{}, nil, err
	}
	var f lockFile
	if err := json.Unmarshal(body, &f); err != nil {
		return Lock{}, nil, fmt.Errorf("lock %s: %w", key, err)
	}
	l := Lock{ID: key, PID: f.PID, User: f.Username, Host: f.Hostname, Since: f.Timestamp, Holder: HolderUnknown}
	if f.Hostname != "" && f.Hostname == d.host {
		l.Holder = processState(f.PID, f.Timestamp)
	}
	return l, body, nil
}

// historyEntry is the part of the CLI's update record driftdeck reads
// (its config, which can hold ciphertexts, is left alone).
type historyEntry struct {
	Kind            string         `json:"kind"`
	StartTime       int64          `json:"startTime"`
	EndTime         int64          `json:"endTime"`
	Message         string         `json:"message"`
	Result          string         `json:"result"`
	ResourceChanges map[string]int `json:"resourceChanges"`
}

// lastUpdate reads the newest .pulumi/history/<dir>/<stack>-<nanos>.history.json.
func (d *DIY) lastUpdate(ctx context.Context, ref StackRef) (*Update, error) {
	keys, err := d.list(ctx, ".pulumi/history/"+d.dir(ref)+"/", "/")
	if err != nil {
		return nil, err
	}
	var newest string
	var newestAt int64 = -1
	for _, k := range keys {
		name := path.Base(k)
		stem, _, ok := strings.Cut(name, ".history.json")
		i := strings.LastIndex(stem, "-")
		if !ok || i < 0 {
			continue
		}
		if at, err := strconv.ParseInt(stem[i+1:], 10, 64); err == nil && at > newestAt {
			newest, newestAt = k, at
		}
	}
	if newest == "" {
		return nil, nil
	}
	stored, err := d.bucket.ReadAll(ctx, newest)
	if err != nil {
		return nil, err
	}
	plain, err := decompress(stored)
	if err != nil {
		return nil, err
	}
	var h historyEntry
	if err := json.Unmarshal(plain, &h); err != nil {
		return nil, fmt.Errorf("%s: %w", newest, err)
	}
	u := &Update{Kind: h.Kind, Result: h.Result, Message: h.Message, Changes: h.ResourceChanges, Start: time.Unix(h.StartTime, 0)}
	if h.EndTime > 0 {
		u.End = time.Unix(h.EndTime, 0)
	}
	return u, nil
}
