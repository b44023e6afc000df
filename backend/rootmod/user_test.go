package rootmod

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/testkit/testtofu"
)

// module is a root module its user runs by hand, beside driftdeck (its
// own working data in a cache directory).
type module struct {
	*testtofu.Module
	t    testing.TB
	tofu *Tofu
}

func newModule(t testing.TB, config string) *module {
	t.Helper()
	m := testtofu.New(t, config)
	tofu, err := New(m.Bin, filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	return &module{Module: m, t: t, tofu: tofu}
}

func (m *module) root() Root {
	m.t.Helper()
	r, err := FromDir(m.Dir)
	if err != nil {
		m.t.Fatal(err)
	}
	return r
}

func ctxOf(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

var noOpts = diff.Options{}
