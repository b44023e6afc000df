package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/driftdeck/driftdeck/backend/store"
)

// twentyContexts are twenty live contexts, the 15th disconnected for a
// minute and the 17th loading.
func twentyContexts() []store.ContextStatus {
	var statuses []store.ContextStatus
	for i := 1; i <= 20; i++ {
		st := store.ContextStatus{Context: fmt.Sprintf("cluster-%d", i), Identity: "admin", Connected: true, Synced: true, LastEvent: fixedNow}
		switch i {
		case 15:
			st.Connected, st.Since, st.LastEvent = false, fixedNow.Add(-time.Minute), fixedNow.Add(-time.Minute)
		case 17:
			st.Synced = false
		}
		statuses = append(statuses, st)
	}
	return statuses
}

// With more contexts than the header holds, the ones that are not live
// come first, so a disconnected cluster is never cut off the screen, and
// the header says how many live ones it left out.
func TestTheHeaderNeverCutsOffAContextThatIsNotLive(t *testing.T) {
	a, _ := newTestApp(t, 200, 24)
	a.Update(BatchMsg(store.Batch{Status: twentyContexts()}))
	header := strings.SplitN(plain(a), "\n", 2)[0]
	for _, want := range []string{"cluster-15 (admin) ● DISCONNECTED 60s", "cluster-17 (admin) ● loading", "more live"} {
		if !strings.Contains(header, want) {
			t.Errorf("the header lacks %q:\n%s", want, header)
		}
	}
	if live := strings.Index(header, "● live"); live < strings.Index(header, "cluster-17") || !strings.HasPrefix(header, "driftdeck cluster-15 ") {
		t.Errorf("the contexts that are not live do not come first:\n%s", header)
	}
	shown := strings.Count(header, "(admin)")
	if want := fmt.Sprintf("+%d more live", 20-shown); !strings.Contains(header, want) {
		t.Errorf("%d contexts shown, and the header does not say %q:\n%s", shown, want, header)
	}
	if w := ansi.StringWidth(header); w > 200 {
		t.Errorf("the header is %d cells wide in 200", w)
	}
}

// When every badge fits, the contexts keep the order they were given in.
func TestTheHeaderKeepsTheContextsInOrderWhenTheyFit(t *testing.T) {
	a, _ := newTestApp(t, 400, 24)
	a.Update(BatchMsg(store.Batch{Status: twentyContexts()[12:17]}))
	header := strings.SplitN(plain(a), "\n", 2)[0]
	last := -1
	for i := 13; i <= 17; i++ {
		at := strings.Index(header, fmt.Sprintf("cluster-%d (admin)", i))
		if at < last {
			t.Fatalf("cluster-%d is not in its place:\n%s", i, header)
		}
		last = at
	}
	if strings.Contains(header, "more") {
		t.Errorf("the header says it left contexts out when all fit:\n%s", header)
	}
}

// In a narrow window the first badge gives way to the count of the
// contexts left out.
func TestANarrowHeaderStillCountsTheContextsLeftOut(t *testing.T) {
	a, _ := newTestApp(t, 80, 24)
	a.Update(BatchMsg(store.Batch{Status: twentyContexts()}))
	header := strings.SplitN(plain(a), "\n", 2)[0]
	if !strings.HasPrefix(header, "driftdeck cluster-15 (admin) ● DISCONNECTED") || !strings.HasSuffix(header, "… +19 more (1 not live)") {
		t.Errorf("at 80 columns the header is:\n%s", header)
	}
}
