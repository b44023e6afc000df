package e2e

import (
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// unread is how many typed bytes the program has not read yet: the input
// queue of the pseudo-terminal, asked of its program's end (TIOCINQ). That
// end is opened only for the question: held open, it would keep the
// terminal alive after the program ended.
func (term *terminal) unread() (int, error) {
	n, err := unix.IoctlGetUint32(int(term.pty.Fd()), unix.TIOCGPTN)
	if err != nil {
		return 0, err
	}
	f, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return unix.IoctlGetInt(int(f.Fd()), unix.TIOCINQ)
}

// caughtUp waits until the program has read all but at most left of what
// was typed, or timeout passes; it says how long that took and whether the
// program got there. Keys typed faster than a race-built program on a busy
// machine reads them queue up in the terminal (tens of kilobytes), and a
// key typed after them, a user's quit included, waits behind every one.
// Read is not yet handled: Bubble Tea's reader may still hold what it read
// (see readerFlushPause).
func (term *terminal) caughtUp(left int, timeout time.Duration) (time.Duration, bool) {
	t0 := time.Now()
	for {
		n, err := term.unread()
		if err != nil || n <= left {
			return time.Since(t0), true
		}
		select {
		case err := <-term.done:
			term.done <- err
			return time.Since(t0), true
		default:
		}
		if time.Since(t0) > timeout {
			return time.Since(t0), false
		}
		time.Sleep(5 * time.Millisecond)
	}
}
