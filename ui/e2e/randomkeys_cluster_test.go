package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/audit/audittest"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/backend/tofu"
)

// randomKeysFor is how long random bytes are typed: 15 s by default, as long
// as DRIFTDECK_RANDOM_KEYS_SECONDS says for the long run.
func randomKeysFor(t *testing.T) time.Duration {
	if s := os.Getenv("DRIFTDECK_RANDOM_KEYS_SECONDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("DRIFTDECK_RANDOM_KEYS_SECONDS=%q", s)
		}
		return time.Duration(n) * time.Second
	}
	return 15 * time.Second
}

// versions is the content of every object of the namespace that driftdeck
// could write (Events included), by resource and name, resourceVersion
// included: an object whose resourceVersion moved was written.
func versions(t *testing.T, dyn dynamic.Interface, ns string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, gvr := range []schema.GroupVersionResource{argocd.Applications, pulumiop.Stacks, tofu.Terraforms[0], corev1.SchemeGroupVersion.WithResource("events")} {
		l, err := dyn.Resource(gvr).Namespace(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range l.Items {
			o.SetManagedFields(nil)
			b, err := json.Marshal(o.Object)
			if err != nil {
				t.Fatal(err)
			}
			out[gvr.Resource+"/"+o.GetName()] = string(b)
		}
	}
	return out
}

func create(t *testing.T, dyn dynamic.Interface, gvr schema.GroupVersionResource, ns, text string) {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal([]byte(text), &u.Object); err != nil {
		t.Fatal(err)
	}
	if _, err := dyn.Resource(gvr).Namespace(ns).Create(context.Background(), u, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// Random bytes typed into the workbench on a real cluster, each run of them
// until the program ends (a random q or ctrl+c quits it, then it is started
// again): no panic, no race, every exit clean, and not one object written.
// It runs --read-only: random keys do type reasons and press y in confirm
// dialogs (a real sync was confirmed that way), so only the backend's
// refusal can promise that nothing is written, and that is what this holds
// under any input.
func TestClusterRandomKeysWriteNothingAndExitCleanly(t *testing.T) {
	r := typeRandomKeys(t, "--read-only", randomBytes, nil)
	if n := r.outcomes["done"] + r.outcomes["dry-run"]; n > 0 {
		t.Errorf("audit log of the read-only runs: %v, want no write let through", r.outcomes)
	}
}

// The same random keys with --dry-run: the forms, the confirm dialogs and
// the writes behind them all run, each write sent as a server-side dry run
// (its Event too), and still no object's resourceVersion moves, no Event is
// created, and every exit is clean. The first run opens with a pause typed
// and confirmed as a user does, so that at least one confirmed write went
// through the dialog whatever the random keys reach.
func TestClusterRandomKeysInDryRunWriteNothingAndExitCleanly(t *testing.T) {
	r := typeRandomKeys(t, "--dry-run", randomChunk, func(term *terminal, ns string) {
		for _, k := range []string{"/", "web", "\r", "p", "INC-1", "\r", "\r"} {
			term.send(k)
			time.Sleep(100 * time.Millisecond)
		}
		// Yes once the plan is shown, as a user gives it: a yes before it
		// is refused ("wait for the plan").
		term.waitFor(promptly, "Will write:", "y yes")
		term.send("y")
		term.waitFor(promptly, "dry run: pause auto-sync and self-heal of argocd/"+ns+"/web — done")
		term.send("\x1b") // the filter
	})
	if r.outcomes["done"] > 0 || r.outcomes["unknown"] > 0 {
		t.Errorf("audit log of the dry-run runs: %v, want no write made", r.outcomes)
	}
	if r.outcomes["dry-run"] == 0 {
		t.Errorf("audit log of the dry-run runs: %v, want the confirmed pause's dry run at least", r.outcomes)
	}
}

// randomKeysRun is what one test's random keys did.
type randomKeysRun struct {
	// outcomes counts the audit log's lines by outcome (done, dry-run,
	// refused, failed): the writes the keys reached.
	outcomes map[string]int
}

// typeRandomKeys types chunks of input into driftdeck started with flag,
// again and again for randomKeysFor, on three Applications, a Stack and a
// Terraform, and fails the test on a panic, a race, an unclean exit, or any
// object written or created in the namespace. opening, when not nil, runs
// on the first run's list before the random keys.
func typeRandomKeys(t *testing.T, flag string, chunks func(*rand.Rand) []byte, opening func(term *terminal, ns string)) randomKeysRun {
	c := testcluster.Shared(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	for _, name := range []string{"web", "api", "worker"} {
		create(t, dyn, argocd.Applications, ns, `{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"`+name+`"},
			"spec":{"project":"default","source":{"repoURL":"https://git.example.com/a.git","path":"`+name+`"},"destination":{"server":"https://kubernetes.default.svc","namespace":"web"},"syncPolicy":{"automated":{"selfHeal":true,"prune":true}}}}`)
	}
	create(t, dyn, pulumiop.Stacks, ns, `{"apiVersion":"pulumi.com/v1","kind":"Stack","metadata":{"name":"net"},"spec":{"stack":"org/net/prod","projectRepo":"https://git.example.com/i.git","branch":"main"}}`)
	create(t, dyn, tofu.Terraforms[0], ns, `{"apiVersion":"infra.contrib.fluxcd.io/v1alpha2","kind":"Terraform","metadata":{"name":"vpc"},
		"spec":{"interval":"10m","path":"./","approvePlan":"auto","sourceRef":{"kind":"GitRepository","name":"infra"}}}`)
	before := versions(t, dyn, ns)
	kc := testcluster.Kubeconfig(t, c.Config(), "e2e")
	// One state directory for every run, so the audit log tells which
	// writes the keys reached.
	state := t.TempDir()

	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("DRIFTDECK_RANDOM_KEYS_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (DRIFTDECK_RANDOM_KEYS_SEED repeats a run)", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	end := time.Now().Add(randomKeysFor(t))
	sent, chunksSent, runs, interrupted := 0, 0, 0, 0
	// slowest is the longest the program took to read what was typed: on a
	// busy machine a race-built program can stall for seconds (seen: 20 s
	// in the full suite), which is the machine's, not a failure.
	var slowest time.Duration
	for time.Now().Before(end) {
		runs++
		term := start(t, 120, 36, []string{"XDG_STATE_HOME=" + state}, flag, "--kubeconfig", kc, "-n", ns)
		term.waitFor(startup, "NAMESPACE/NAME", "argocd ")
		if runs == 1 && opening != nil {
			opening(term, ns)
		}
		ended := false
		for !ended && time.Now().Before(end) {
			chunk := chunks(rng)
			if _, err := term.pty.Write(chunk); err != nil {
				break // the program ended and closed the terminal
			}
			sent += len(chunk)
			chunksSent++
			time.Sleep(time.Duration(2+rng.IntN(10)) * time.Millisecond)
			if chunksSent%readerFlushEvery == 0 {
				time.Sleep(readerFlushPause)
			}
			// Typed no faster than the program reads: what it has not read
			// yet stays small, so the quit below reaches it promptly.
			waited, ok := term.caughtUp(maxUnread, exiting)
			if !ok {
				t.Fatalf("run %d (seed %d): the program read no key for %s; screen:\n%s\nits goroutines:\n%s", runs, seed, waited.Round(time.Second), term.screen(), term.goroutines())
			}
			slowest = max(slowest, waited)
			select {
			case err := <-term.done:
				term.done <- err
				ended = true
			default:
			}
		}
		if !ended && quitFromAnywhere(term) {
			interrupted++
		}
		code := term.exit(exiting)
		// What the program wrote last may still be in the pseudo-terminal.
		for deadline := time.Now().Add(2 * time.Second); term.altScreen() && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
		}
		out := term.written()
		for _, bad := range []string{"panic:", "goroutine ", "WARNING: DATA RACE"} {
			if i := bytes.Index(out, []byte(bad)); i >= 0 {
				t.Fatalf("run %d (seed %d): %q after random keys: %s", runs, seed, bad, out[i:min(i+2000, len(out))])
			}
		}
		if code != 0 {
			t.Fatalf("run %d (seed %d) exited %d; screen:\n%s", runs, seed, code, term.screen())
		}
		if term.altScreen() {
			t.Fatalf("run %d (seed %d) left the terminal on the alternate screen; it wrote last: %q", runs, seed, out[max(len(out)-400, 0):])
		}
	}
	after := versions(t, dyn, ns)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s was written:\nbefore %s\nafter  %s", k, v, after[k])
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			t.Errorf("%s was created", k)
		}
	}
	r := randomKeysRun{outcomes: map[string]int{}}
	actions := map[string]int{}
	for _, e := range audittest.Entries(t, filepath.Join(state, "driftdeck", "audit.jsonl")) {
		r.outcomes[e.Outcome]++
		actions[e.Action+" "+e.Outcome]++
	}
	t.Logf("%d random bytes in %d runs of driftdeck %s (%d quit only by ctrl+c, keys read at worst %s late), each ended cleanly; %d objects unchanged; writes reached: %v",
		sent, runs, flag, interrupted, slowest.Round(time.Millisecond), len(before), actions)
	return r
}

// maxUnread is how far typing may run ahead of the program's reading.
const maxUnread = 64

// Bubble Tea's terminal reader holds what it cannot decode yet (an esc
// followed by an invalid byte is "unknown, wait for more") until no byte
// came for 50 ms, and every byte that follows waits with it: typed without
// such a pause, seconds of random keys are read from the terminal but held
// there, then reach the program at once, thousands of keys that a
// race-built program on a busy machine takes minutes to handle, and the
// quit below waits behind them. A pause now and then, as any typing has,
// lets the reader hand over what it holds; caughtUp then says what it
// means.
const (
	readerFlushEvery = 20
	readerFlushPause = 80 * time.Millisecond
)

// randomKey is any byte but the terminal's own signal characters (ctrl+c,
// ctrl+\, ctrl+z): once driftdeck leaves raw mode on its way out, the
// terminal turns those into signals for whatever runs in it (a ctrl+\
// there dumps the exiting process's goroutines), as for any program.
func randomKey(rng *rand.Rand) byte {
	for {
		switch b := byte(rng.IntN(256)); b {
		case 0x03, 0x1c, 0x1a:
		default:
			return b
		}
	}
}

// workbenchKeys are keys the workbench reads (its default keymap, the
// keys of its forms and dialogs), esc, enter and y more often: typed among
// the random bytes they reach the forms, the confirm dialogs and the
// writes behind them, which bytes alone seldom do. q (back, and quit on
// the list) ends a run now and then, so that exits from random states are
// tried again and again.
var workbenchKeys = append(strings.Split("kjgGaAsrRTpuxBCdFUyyYnNvLfXPKwtzZOScbmWhlqo?/: 0123456789", ""),
	"\r", "\r", "\r", "\t", "\t", "\x1b", "\x1b", "\x1b", "\x1b[A", "\x1b[B", "\x1b[C", "\x1b[D", "\x1b[Z", "\x7f")

// randomChunk is what is typed at once: random bytes, or as often one
// workbench key (alone, so that an esc is not read as alt with the next
// key).
func randomChunk(rng *rand.Rand) []byte {
	if rng.IntN(2) == 0 {
		return []byte(workbenchKeys[rng.IntN(len(workbenchKeys))])
	}
	return randomBytes(rng)
}

// randomBytes is 1 to 8 random bytes.
func randomBytes(rng *rand.Rand) []byte {
	chunk := make([]byte, 1+rng.IntN(8))
	for i := range chunk {
		chunk[i] = randomKey(rng)
	}
	return chunk
}

// closeOpenSequences ends a bracketed paste (ESC [ 201 ~) and any string
// sequence (ST), and cancels a control sequence in progress (CAN).
const closeOpenSequences = "\x1b[201~\x1b\\\x18"

// quitFromAnywhere leaves whatever screen the keys reached and quits, as a
// user would: esc (closes a dialog or form, leaves a filter), then q (back
// from a screen, quit on the list), in turn, one key at a time, until the
// program leaves the alternate screen (it restored the terminal and is
// exiting: a key typed then would only be echoed, and a ctrl+c would kill
// it) or ends; ctrl+c after quitWithin. It says whether ctrl+c was needed.
func quitFromAnywhere(term *terminal) (interrupted bool) {
	// Random bytes can open what only a terminator closes (a bracketed
	// paste, a string sequence): a user's terminal always sends it, so the
	// user's first key then reaches the program; it is sent here first.
	if _, err := term.pty.Write([]byte(closeOpenSequences)); err != nil {
		return false
	}
	for i, deadline := 0, time.Now().Add(quitWithin); time.Now().Before(deadline); i++ {
		k := "\x1b"
		if i%2 == 1 {
			k = "q"
		}
		if _, err := term.pty.Write([]byte(k)); err != nil {
			return false // the program ended and closed the terminal
		}
		// One key at a time: the next only once this one was read.
		term.caughtUp(0, quitWithin)
		for wait := time.Now().Add(300 * time.Millisecond); time.Now().Before(wait); {
			select {
			case err := <-term.done:
				term.done <- err
				return false
			case <-time.After(20 * time.Millisecond):
			}
			if !term.altScreen() {
				return false
			}
		}
	}
	term.t.Logf("esc and q did not end it in %s, ctrl+c does; the screen:\n%s", quitWithin, term.screen())
	// A ctrl+c right after the last esc reads as alt+ctrl+c (an esc waits
	// for what follows it), which quits nothing: it goes alone, once the
	// esc was read and its wait is over, and again until the program
	// leaves the alternate screen (once it has, a ctrl+c would kill it).
	for deadline := time.Now().Add(quitWithin); time.Now().Before(deadline) && term.altScreen(); {
		term.caughtUp(0, quitWithin)
		time.Sleep(time.Second)
		if !term.altScreen() {
			break
		}
		if _, err := term.pty.Write([]byte("\x03")); err != nil {
			break
		}
		for wait := time.Now().Add(2 * time.Second); time.Now().Before(wait) && term.altScreen(); {
			time.Sleep(20 * time.Millisecond)
		}
	}
	return true
}

// A race-built program on a busy machine (two cores shared by the suite's
// other package, its control planes and builds) draws each frame slowly,
// and its exit waits for the race detector's own (seen: more than 20 s in
// racefini): the quit is given that time. Neither is what the test holds.
const (
	quitWithin = 30 * time.Second
	exiting    = 2 * time.Minute
)
