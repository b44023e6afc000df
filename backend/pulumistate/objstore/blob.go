package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// bucket is a Store over a gocloud bucket.
type bucket struct {
	b   *blob.Bucket
	dir string // a file:// bucket's directory (sidecar.go); "" otherwise
}

// OpenBucket opens rawURL with the gocloud drivers linked into the program
// (each driver registers its scheme when imported).
func OpenBucket(ctx context.Context, rawURL string) (Store, error) {
	b, err := blob.OpenBucket(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	return bucket{b: b, dir: fileDir(rawURL)}, nil
}

func (s bucket) ReadAll(ctx context.Context, key string) ([]byte, error) {
	body, err := s.b.ReadAll(ctx, key)
	if err != nil {
		if whole, ok := s.readPastTornSidecar(key); ok {
			return whole, nil
		}
	}
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil, fmt.Errorf("%s: %w", key, ErrNotFound)
	}
	return body, err
}

func (s bucket) WriteAll(ctx context.Context, key string, body []byte) error {
	return s.b.WriteAll(ctx, key, body, nil)
}

func (s bucket) Delete(ctx context.Context, key string) error { return s.b.Delete(ctx, key) }

func (s bucket) List(ctx context.Context, prefix, delimiter string) ([]Object, error) {
	it := s.b.List(&blob.ListOptions{Prefix: prefix, Delimiter: delimiter})
	var out []Object
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, Object{Key: obj.Key, IsDir: obj.IsDir, ModTime: obj.ModTime})
	}
}

func (s bucket) Close() error { return s.b.Close() }
