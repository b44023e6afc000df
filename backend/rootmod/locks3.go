package rootmod

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumistate/objstore"
)

// The s3 backend keeps workspace W's state at key (default workspace) or
// <workspace_key_prefix>/W/key, and with use_lockfile its lock beside it
// in <state key>.tflock: the lock info, left behind by a killed run. It is
// read through the driftdeck-state helper, which holds the S3 SDK, with
// the credentials the AWS SDK finds (environment, profile).

// s3Store opens the backend's bucket.
func s3Store(ctx context.Context, be backendInfo) (objstore.Store, error) {
	bucket := be.setting("bucket", "", "")
	if bucket == "" {
		return nil, errors.New("the s3 backend names no bucket")
	}
	if be.setting("access_key", "", "") != "" {
		return nil, errors.New("the s3 backend is given its keys inline: driftdeck reads its lock with the credentials of the environment or a profile only")
	}
	q := url.Values{}
	if r := be.setting("region", "AWS_REGION", ""); r != "" {
		q.Set("region", r)
	}
	if p := be.setting("profile", "AWS_PROFILE", ""); p != "" {
		q.Set("profile", p)
	}
	endpoint := be.setting("endpoint", "AWS_ENDPOINT_URL_S3", "")
	if eps, ok := be.Config["endpoints"].(map[string]any); ok {
		if s, ok := eps["s3"].(string); ok && s != "" {
			endpoint = s
		}
	}
	if endpoint != "" {
		q.Set("endpoint", endpoint)
	}
	if v, _ := be.Config["use_path_style"].(bool); v {
		q.Set("use_path_style", "true")
	}
	helper, err := objstore.FindHelper("the s3 backend's lock")
	if err != nil {
		return nil, err
	}
	return objstore.Dial(ctx, helper, (&url.URL{Scheme: "s3", Host: bucket, RawQuery: q.Encode()}).String())
}

// s3StateKey is where the backend keeps r's state in its bucket.
func s3StateKey(r Root, be backendInfo) string {
	key := be.setting("key", "", "terraform.tfstate")
	if r.Workspace == DefaultWorkspace {
		return key
	}
	return path.Join(be.setting("workspace_key_prefix", "", "env:"), r.Workspace, key)
}

func readS3Lock(ctx context.Context, r Root, be backendInfo) (*model.RootLock, error) {
	if v, _ := be.Config["use_lockfile"].(bool); !v {
		if be.setting("dynamodb_table", "", "") != "" {
			return nil, errLockNotRead{"s3 backend's DynamoDB"}
		}
		return nil, errors.New("the s3 backend keeps no lock (neither use_lockfile nor dynamodb_table): concurrent runs are not kept apart")
	}
	store, err := s3Store(ctx, be)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	b, err := store.ReadAll(ctx, s3StateKey(r, be)+".tflock")
	if errors.Is(err, objstore.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the lockfile: %w", err)
	}
	return parseLockInfo(b)
}

// s3StateWritten is when the state object was last written.
func s3StateWritten(ctx context.Context, r Root, be backendInfo) (time.Time, error) {
	store, err := s3Store(ctx, be)
	if err != nil {
		return time.Time{}, err
	}
	defer store.Close()
	key := s3StateKey(r, be)
	objs, err := store.List(ctx, key, "")
	if err != nil {
		return time.Time{}, err
	}
	for _, o := range objs {
		if o.Key == key {
			return o.ModTime, nil
		}
	}
	return time.Time{}, objstore.ErrNotFound
}
