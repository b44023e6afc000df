package main

import (
	"runtime"
	"slices"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"golang.org/x/sys/unix"

	"github.com/driftdeck/driftdeck/ui"
)

// loop runs the app the way Bubble Tea's event loop does, minus the
// terminal: one goroutine takes every message in arrival order, calls Update,
// then View, and runs the returned commands concurrently, feeding their
// messages back. It times each frame (Update + View).
type loop struct {
	app *ui.App
	in  chan event

	mu  sync.Mutex
	rec recording
	// watch sees every frame's screen, while set (start-up only: reading
	// the screen text costs a little).
	watch func(screen string, at time.Time)
	// filter sees every message first, as tea.WithFilter's.
	filter func(tea.Model, tea.Msg) tea.Msg
}

type eventKind int

const (
	kindKey eventKind = iota
	kindBatch
	kindOther
)

type event struct {
	msg  tea.Msg
	kind eventKind
	// label groups keys in the recording (moves, filter typing, sorting).
	label string
	sent  time.Time
	// done, when set, receives the frame's Update + View time.
	done chan time.Duration
}

// recording collects frame times per kind.
type recording struct {
	keyHandle  []time.Duration // Update + View of a key
	keyCPU     []time.Duration // the CPU time of the same
	keyLatency []time.Duration // from the key's arrival to its frame drawn
	// byLabel are the keys' Update + View times and CPU times per label.
	byLabel  map[string]*labelled
	batch    []time.Duration // Update + View of a model batch
	batchCPU []time.Duration // the CPU time of the same
	frames   int
}

type labelled struct{ handle, cpu []time.Duration }

func newLoop(app *ui.App) *loop {
	return &loop{app: app, in: make(chan event, 4096)}
}

// send queues a message, as tea.Program.Send does.
func (l *loop) send(msg tea.Msg, kind eventKind) {
	l.in <- event{msg: msg, kind: kind, sent: time.Now()}
}

// press queues a key, recorded under label, and waits until its frame is
// drawn.
func (l *loop) press(msg tea.Msg, label string) {
	done := make(chan time.Duration, 1)
	l.in <- event{msg: msg, kind: kindKey, label: label, sent: time.Now(), done: done}
	<-done
}

// do sends a message and waits for its frame, returning its time (which is
// not recorded).
func (l *loop) do(msg tea.Msg) time.Duration {
	done := make(chan time.Duration, 1)
	l.in <- event{msg: msg, kind: kindOther, sent: time.Now(), done: done}
	return <-done
}

func (l *loop) run(stop <-chan struct{}) {
	// One thread for the loop alone, so that its CPU clock counts only the
	// frames' work (and the GC assists they pay for).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for {
		var ev event
		select {
		case <-stop:
			return
		case ev = <-l.in:
		}
		start, cpu0 := time.Now(), threadCPU()
		msg := ev.msg
		if l.filter != nil {
			msg = l.filter(l.app, msg)
		}
		_, cmd := l.app.Update(msg)
		v := l.app.View()
		end, cpu := time.Now(), threadCPU()-cpu0
		handle := end.Sub(start)
		l.mu.Lock()
		l.rec.frames++
		switch ev.kind {
		case kindKey:
			l.rec.keyHandle = append(l.rec.keyHandle, handle)
			l.rec.keyCPU = append(l.rec.keyCPU, cpu)
			l.rec.keyLatency = append(l.rec.keyLatency, end.Sub(ev.sent))
			if l.rec.byLabel == nil {
				l.rec.byLabel = map[string]*labelled{}
			}
			lb := l.rec.byLabel[ev.label]
			if lb == nil {
				lb = &labelled{}
				l.rec.byLabel[ev.label] = lb
			}
			lb.handle, lb.cpu = append(lb.handle, handle), append(lb.cpu, cpu)
		case kindBatch:
			l.rec.batch = append(l.rec.batch, handle)
			l.rec.batchCPU = append(l.rec.batchCPU, cpu)
		}
		watch := l.watch
		l.mu.Unlock()
		if watch != nil {
			watch(v.Content, end)
		}
		if ev.done != nil {
			ev.done <- handle
		}
		l.exec(cmd)
	}
}

// exec runs a command in the background and feeds its message back.
func (l *loop) exec(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		switch msg := cmd().(type) {
		case nil, tea.QuitMsg:
		case tea.BatchMsg:
			for _, c := range msg {
				l.exec(c)
			}
		default:
			l.send(msg, kindOther)
		}
	}()
}

// take returns what was recorded since the last take and starts afresh.
func (l *loop) take() recording {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.rec
	l.rec = recording{}
	return r
}

func (l *loop) setWatch(f func(screen string, at time.Time)) {
	l.mu.Lock()
	l.watch = f
	l.mu.Unlock()
}

// stats summarise durations.
type stats struct {
	N                int
	Median, P99, Max time.Duration
}

func summarize(ds []time.Duration) stats {
	if len(ds) == 0 {
		return stats{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	p99 := s[min(len(s)-1, (len(s)*99+99)/100-1)]
	return stats{N: len(s), Median: s[len(s)/2], P99: p99, Max: s[len(s)-1]}
}

// threadCPU is the CPU time of the calling thread.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
