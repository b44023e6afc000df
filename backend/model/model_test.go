package model

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseRef(t *testing.T) {
	k, err := ParseRef("prod:argocd/argocd/guestbook")
	if err != nil || k != (Key{Context: "prod", Engine: EngineArgoCD, Namespace: "argocd", Name: "guestbook"}) || k.String() != "prod:argocd/argocd/guestbook" {
		t.Fatalf("%+v %v", k, err)
	}
	if k, _ := ParseRef("stack/infra/net"); k.Engine != EnginePulumi || k.Ref() != "pulumi/infra/net" {
		t.Fatalf("alias: %+v", k)
	}
	for _, bad := range []string{"guestbook", "argocd/guestbook", "flux/a/b", ":argocd/a/b", "argocd//b"} {
		if _, err := ParseRef(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestDeriveStuckAfterThreshold(t *testing.T) {
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	u := &Unit{Observed: Running, RunSince: now.Add(-11 * time.Minute)}
	if !Derive(u, now, DefaultThresholds) || u.Run != Stuck || !strings.Contains(u.StuckRule, "running for longer than the 10m threshold") {
		t.Fatalf("%v %q", u.Run, u.StuckRule)
	}
	q := &Unit{Observed: Running, Queued: true, RunSince: now.Add(-3 * time.Minute)}
	Derive(q, now, DefaultThresholds)
	if q.Run != Stuck || !strings.Contains(q.StuckRule, "queued") {
		t.Fatalf("queued: %v %q", q.Run, q.StuckRule)
	}
	fresh := &Unit{Observed: Running, RunSince: now.Add(-time.Minute)}
	Derive(fresh, now, DefaultThresholds)
	if fresh.Run != Running || fresh.StuckRule != "" {
		t.Fatalf("fresh: %v %q", fresh.Run, fresh.StuckRule)
	}
	if Derive(fresh, now, DefaultThresholds) {
		t.Fatal("deriving twice reports a change")
	}
}

func TestHumanDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		5 * time.Second: "5s", 150 * time.Second: "2m30s", 47 * time.Minute: "47m", 5*time.Hour + 19*time.Minute: "5h19m",
		30 * time.Hour: "30h", 72 * time.Hour: "3d", -time.Second: "0s",
	} {
		if got := HumanDuration(d); got != want {
			t.Errorf("%v: %q, want %q", d, got, want)
		}
	}
}

// A screen drawn again when HumanDurationChangesIn says shows every change of
// the text on time and never waits past one.
func TestHumanDurationChangesWhenItSays(t *testing.T) {
	for d := -3 * time.Second; d < 50*time.Hour; d += 7*time.Second + 300*time.Millisecond {
		in := HumanDurationChangesIn(d)
		if in <= 0 {
			t.Fatalf("%v: changes in %v", d, in)
		}
		if before, at := HumanDuration(d+in-time.Nanosecond), HumanDuration(d+in); before != HumanDuration(d) || at == before {
			t.Fatalf("%v (%q): said to change in %v, but shows %q just before and %q then", d, HumanDuration(d), in, before, at)
		}
	}
}

// A persisting failure becomes stuck past the running threshold, exactly
// when DerivesAgainAt says, and its rule does not change again with time:
// a rule counting minutes sent every stuck unit to the screen each minute.
func TestDerivePersistingFailureBecomesStuck(t *testing.T) {
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	u := &Unit{Observed: Failed, RunSince: now.Add(-12 * time.Minute), Persisting: "failing on revision main@sha1:1a2b"}
	Derive(u, now, DefaultThresholds)
	if u.Run != Stuck || u.StuckRule != "failing on revision main@sha1:1a2b for longer than the 10m threshold" {
		t.Fatalf("%v %q", u.Run, u.StuckRule)
	}
	if Derive(u, now.Add(time.Hour), DefaultThresholds) {
		t.Errorf("an hour later the stuck unit changed again: %q", u.StuckRule)
	}
	if at := DerivesAgainAt(u, now, DefaultThresholds); !at.IsZero() {
		t.Errorf("a stuck unit is said to change again at %v", at)
	}

	recent := &Unit{Observed: Failed, RunSince: now.Add(-time.Minute), Persisting: "failing on revision main@sha1:1a2b"}
	Derive(recent, now, DefaultThresholds)
	if recent.Run != Failed || recent.StuckRule != "" {
		t.Fatalf("recent: %v %q", recent.Run, recent.StuckRule)
	}
	at := DerivesAgainAt(recent, now, DefaultThresholds)
	if want := recent.RunSince.Add(DefaultThresholds.Running + time.Nanosecond); !at.Equal(want) {
		t.Fatalf("a failure a minute old is said to change at %v, want %v", at, want)
	}
	if Derive(recent, at.Add(-time.Nanosecond), DefaultThresholds) || !Derive(recent, at, DefaultThresholds) || recent.Run != Stuck {
		t.Fatalf("the failure did not become stuck exactly at %v: %v", at, recent.Run)
	}

	plain := &Unit{Observed: Failed, RunSince: now.Add(-time.Hour)}
	if !DerivesAgainAt(plain, now, DefaultThresholds).IsZero() || Derive(plain, now, DefaultThresholds) && plain.Run != Failed {
		t.Fatalf("a failure without a persisting rule: %v", plain.Run)
	}
	paused := &Unit{Pause: &PauseRecord{Until: now.Add(time.Hour)}}
	if at := DerivesAgainAt(paused, now, DefaultThresholds); !at.Equal(now.Add(time.Hour + time.Nanosecond)) {
		t.Errorf("a pause ending in an hour is said to change at %v", at)
	}
}

func TestInKeyOrderSinceComparesWhatChanged(t *testing.T) {
	unit := func(name string) *Unit {
		return &Unit{Key: Key{Context: "c", Engine: EngineArgoCD, Namespace: "ns", Name: name}}
	}
	prev := []*Unit{unit("a"), unit("b"), unit("c"), unit("d")}
	if !InKeyOrderSince(prev, nil) {
		t.Fatal("a sorted snapshot checked alone is out of order")
	}
	next := slices.Clone(prev)
	next[2] = unit("c") // a new version of the same unit
	if !InKeyOrderSince(next, prev) {
		t.Fatal("a changed unit at its place is out of order")
	}
	next[2] = unit("z") // a unit at the wrong place
	if InKeyOrderSince(next, prev) {
		t.Fatal("a unit out of key order is not seen")
	}
	longer := append(slices.Clone(prev), unit("b"))
	if InKeyOrderSince(longer, prev) {
		t.Fatal("a unit out of key order past prev's end is not seen")
	}
	swapped := []*Unit{prev[1], prev[0], prev[2], prev[3]}
	if InKeyOrderSince(swapped, prev) {
		t.Fatal("two units swapped are not seen")
	}
}
