//go:build linux

package residency

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// ReleaseStartupPages drops the executable's read-only pages (code, read-only
// data, the pc tables) from the process's page tables. They are clean pages
// of the file: the ones still in use come back on their next access, from
// the page cache, and the rest (package initialisation, start-up, the first
// sync's decoding) stop counting as the process's own.
func ReleaseStartupPages() error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(bytes.NewReader(maps))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		// Only mappings never written: a private page written to (the data
		// segment) would be lost.
		if len(f) < 6 || f[5] != exe || (f[1] != "r-xp" && f[1] != "r--p") {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		if _, _, errno := unix.Syscall(unix.SYS_MADVISE, uintptr(start), uintptr(end-start), unix.MADV_DONTNEED); errno != 0 {
			return errno
		}
	}
	return sc.Err()
}
