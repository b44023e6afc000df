package rootmod

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/model"
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

// killedApply has the user start an apply that holds r's lock for a minute
// and kills it once driftdeck reads the lock, which it returns as read
// while held.
func (m *module) killedApply(ctx context.Context, r Root) *model.RootLock {
	m.t.Helper()
	var held *model.RootLock
	m.KilledApply(func() bool {
		l, _, err := m.tofu.ReadLock(ctx, r)
		if err != nil {
			m.t.Fatal(err)
		}
		held = l
		return l != nil && l.ID != ""
	}, "-var", "size=large", "-var", "hold=60")
	return held
}
