// Package objstore is the small object-store API the DIY state reader needs
// (read, write, delete, list), with two implementations: a gocloud bucket in
// this process, and the same bucket served by the driftdeck-state helper
// over its standard input and output.
//
// The helper exists for memory: the S3, Google Cloud Storage and Azure
// drivers bring their SDKs, whose package initialisation alone adds about
// 30 MB to the resident size of any process that links them. driftdeck
// keeps file:// buckets in process and runs the helper for the others, only
// when a user opens such a bucket (docs/adr/0006-cloud-state-buckets-in-a-helper.md).
package objstore

import (
	"context"
	"errors"
	"time"
)

// Store is a bucket of objects named by slash-separated keys.
type Store interface {
	// ReadAll returns the object's bytes; an error wrapping ErrNotFound
	// when there is no such object.
	ReadAll(ctx context.Context, key string) ([]byte, error)
	WriteAll(ctx context.Context, key string, body []byte) error
	Delete(ctx context.Context, key string) error
	// List returns the objects whose keys start with prefix. With a
	// delimiter, keys holding it after the prefix are folded into one
	// directory entry (IsDir) each, as gocloud and S3 do.
	List(ctx context.Context, prefix, delimiter string) ([]Object, error)
	Close() error
}

// Object is one listed key.
type Object struct {
	Key     string    `json:"key"`
	IsDir   bool      `json:"dir,omitempty"`
	ModTime time.Time `json:"modTime"`
}

// ErrNotFound is wrapped by ReadAll's error when the key does not exist.
var ErrNotFound = errors.New("object not found")
