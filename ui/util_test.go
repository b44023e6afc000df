package ui

import (
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/driftdeck/driftdeck/backend/model"
)

func itoa(n int) string { return strconv.Itoa(n) }

// async runs cmd the way the program does, each command of a batch in its
// own goroutine, and sends the messages to out.
func async(cmd tea.Cmd, out chan<- tea.Msg) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		if b, ok := msg.(tea.BatchMsg); ok {
			for _, c := range b {
				async(c, out)
			}
			return
		}
		if msg != nil {
			out <- msg
		}
	}()
}

// deliver feeds messages from ch to a (running what they return the same
// way) until done holds; it fails the test after ten seconds.
func deliver(t *testing.T, a *App, ch chan tea.Msg, done func() bool) {
	t.Helper()
	deadline := time.After(10 * time.Second) // a poll: room for a loaded 2-core machine
	for !done() {
		select {
		case msg := <-ch:
			if _, ok := msg.(tickMsg); ok {
				continue
			}
			_, cmd := a.Update(msg)
			async(cmd, ch)
		case <-deadline:
			t.Fatalf("timed out; the screen is:\n%s", plain(a))
		}
	}
}

// sendKey presses one key and runs what it returns asynchronously.
func sendKey(a *App, ch chan tea.Msg, k string) {
	_, cmd := a.Update(keyMsg(k))
	async(cmd, ch)
}

// plain is the screen as text.
func plain(a *App) string { return ansi.Strip(a.View().Content) }

// flat is the screen's text with its lines joined, to find a wrapped text.
func flat(a *App) string {
	var words []string
	for _, l := range strings.Split(plain(a), "\n") {
		words = append(words, strings.Fields(l)...)
	}
	return strings.Join(words, " ")
}

// selectUnit puts the list's cursor on the unit named name.
func selectUnit(t testing.TB, a *App, name string) *model.Unit {
	t.Helper()
	for i, u := range a.list().m.Shown() {
		if u.Key.Name == name {
			a.list().m.MoveTo(i)
			return u
		}
	}
	t.Fatalf("%s is not shown", name)
	return nil
}

func topIs[T screen](a *App) bool {
	_, ok := a.top().(T)
	return ok
}

func teaSize(w, h int) tea.WindowSizeMsg { return tea.WindowSizeMsg{Width: w, Height: h} }
