package helperbin

import (
	"sync"
	"time"
)

// inFlight counts each helper's calls still running, by the helper's name.
// A cancelled call returns only once its helper has exited, and a helper
// told to stop may still be finishing (a pulumi CLI releasing the stack's
// lock, then writing its outcome to our pipe): a process that quits waits
// for them, or the helper's last writes meet a closed pipe.
var inFlight sync.Map // name -> *flights

// flights counts calls; idle is closed whenever none runs. (A WaitGroup
// does not allow a call to start while another goroutine waits.)
type flights struct {
	mu   sync.Mutex
	n    int
	idle chan struct{}
}

func (h Helper) flights() *flights {
	f, _ := inFlight.LoadOrStore(h.Name, &flights{})
	return f.(*flights)
}

func (f *flights) begin() {
	f.mu.Lock()
	if f.n == 0 {
		f.idle = make(chan struct{})
	}
	f.n++
	f.mu.Unlock()
}

func (f *flights) end() {
	f.mu.Lock()
	f.n--
	if f.n == 0 {
		close(f.idle)
	}
	f.mu.Unlock()
}

// Wait waits up to d for h's calls in flight to end; false when one still
// runs after d.
func (h Helper) Wait(d time.Duration) bool {
	f := h.flights()
	f.mu.Lock()
	idle := f.idle
	running := f.n > 0
	f.mu.Unlock()
	if !running {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-idle:
		return true
	case <-t.C:
		return false
	}
}
