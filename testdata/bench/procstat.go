package main

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"
)

// userHZ is the unit of the times in /proc/<pid>/stat (USER_HZ, 100 on Linux).
const userHZ = 100

// memory is what /proc/<pid>/status says about a process's resident memory.
type memory struct {
	HWM, RSS uint64 // bytes: peak and current resident set
	// Anon is the private part of RSS (heap, stacks); File the mapped
	// binary's pages in memory, shared and reclaimable.
	Anon, File uint64
}

func readMemory(pid string) (memory, error) {
	raw, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return memory{}, err
	}
	var m memory
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		f := strings.Fields(val)
		if len(f) != 2 || f[1] != "kB" {
			continue
		}
		kb, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			continue
		}
		switch key {
		case "VmHWM":
			m.HWM = kb * 1024
		case "VmRSS":
			m.RSS = kb * 1024
		case "RssAnon":
			m.Anon = kb * 1024
		case "RssFile":
			m.File = kb * 1024
		}
	}
	if m.HWM == 0 || m.RSS == 0 {
		return m, fmt.Errorf("/proc/%s/status has no VmHWM/VmRSS", pid)
	}
	return m, nil
}

// cpuTime is the user+system CPU time a process used so far, from
// /proc/<pid>/stat (utime and stime, fields 14 and 15).
func cpuTime(pid string) (time.Duration, error) {
	raw, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, err
	}
	s := string(raw)
	closing := strings.LastIndexByte(s, ')')
	if closing < 0 {
		return 0, fmt.Errorf("/proc/%s/stat: unexpected format", pid)
	}
	f := strings.Fields(s[closing+1:]) // f[0] is field 3 (state)
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%s/stat: too few fields", pid)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%s/stat: bad utime/stime", pid)
	}
	return time.Duration(utime+stime) * time.Second / userHZ, nil
}

// idleWindow is the idle figures' window by default: the Go runtime forces
// a collection when none ran for two minutes, and with a large model one
// costs as much as a minute of the rest of the idle, so a shorter window
// holds one or none: 60 s windows of one build at twenty clusters read
// 0.33 % to 1.05 % of a core.
const idleWindow = 2 * time.Minute

// idleCPU measures the share of one core a process uses over d.
func idleCPU(pid string, d time.Duration) (float64, error) {
	before, err := cpuTime(pid)
	if err != nil {
		return 0, err
	}
	start := time.Now()
	time.Sleep(d)
	after, err := cpuTime(pid)
	if err != nil {
		return 0, err
	}
	return float64(after-before) / float64(time.Since(start)) * 100, nil
}

// gcCycles is how many collections this process has run.
func gcCycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// idleTicks is how many /proc clock ticks a share of a core over d was
// counted in: the figure's resolution is one of them.
func idleTicks(percent float64, d time.Duration) int {
	return int(math.Round(percent / 100 * d.Seconds() * userHZ))
}

// machine describes where the numbers were taken.
func machine() (cpus int, model string, load string) {
	raw, _ := os.ReadFile("/proc/cpuinfo")
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "processor":
			cpus++
		case "model name":
			if model == "" {
				model = strings.TrimSpace(v)
			}
		}
	}
	if l, err := os.ReadFile("/proc/loadavg"); err == nil {
		f := strings.Fields(string(l))
		if len(f) >= 3 {
			load = strings.Join(f[:3], " ")
		}
	}
	return cpus, model, load
}
