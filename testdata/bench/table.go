package main

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"
)

// report is every figure of one run.
type report struct {
	Size              fleetSize
	CRDs              string
	ControlPlaneStart time.Duration
	Seed              seedResult
	Floor             floorResult
	// Starts are the start-up samples, each right after a floor sample.
	Starts []startSample
	// Child is the full in-process run: memory, idle, keys, filter, sort.
	Child childResult
	Churn struct {
		Applied, Failed int64
		Rate            float64
	}
	Binary      *binaryResult
	BinaryError string
	Machine     struct {
		NProc              int
		CPU, Go            string
		LoadStart, LoadEnd string
		TotalTaken         time.Duration
	}
}

// startSample is one measured start-up, with the CPU the API server spent
// serving it (exec to full screen).
type startSample struct {
	childResult
	ServerCPU time.Duration
}

type row struct{ figure, value, unit, ratio, target string }

// meanSizeTarget is the size each generated kind is shaped to.
var meanSizeTarget = map[string]string{"Applications": "~14"}

// spread is the median of samples and, when there are several, their range.
func spread(ds []time.Duration) (median time.Duration, note string) {
	if len(ds) == 0 {
		return 0, ""
	}
	median = medianOf(ds)
	if len(ds) > 1 {
		note = fmt.Sprintf(" (median of %d: %s-%s)", len(ds), secs(slices.Min(ds)), secs(slices.Max(ds)))
	}
	return median, note
}

func (r *report) starts(field func(startSample) time.Duration) []time.Duration {
	var out []time.Duration
	for _, s := range r.Starts {
		out = append(out, field(s))
	}
	return out
}

func secs(d time.Duration) string { return fmt.Sprintf("%.2f", d.Seconds()) }
func ms(d time.Duration) string   { return fmt.Sprintf("%.2f", float64(d)/float64(time.Millisecond)) }
func mb(b uint64) string          { return fmt.Sprintf("%.1f", float64(b)/(1<<20)) }

func ratio(d, floor time.Duration) string {
	if floor <= 0 || d <= 0 {
		return ""
	}
	return fmt.Sprintf("%.2fx", float64(d)/float64(floor))
}

func (r *report) rows() []row {
	c, fl := r.Child, r.Floor
	units := r.Size.units()
	floor, floorNote := spread(fl.All)
	floorCPU, floorCPUNote := spread(fl.AllServerCPU)
	model, modelNote := spread(r.starts(func(s startSample) time.Duration { return s.ModelComplete }))
	first, firstNote := spread(r.starts(func(s startSample) time.Duration { return s.FirstFrame }))
	full, fullNote := spread(r.starts(func(s startSample) time.Duration { return s.FullScreen }))
	startCPU, startCPUNote := spread(r.starts(func(s startSample) time.Duration { return s.StartCPU }))
	serverCPU, serverCPUNote := spread(r.starts(func(s startSample) time.Duration { return s.ServerCPU }))
	firstUnits := 0
	if len(r.Starts) > 0 {
		firstUnits = r.Starts[len(r.Starts)/2].FirstUnits
	}
	rows := []row{
		{"control plane start (kube-apiserver + etcd, CRDs installed)", secs(r.ControlPlaneStart), "s", "", ""},
		{fmt.Sprintf("seeding %s (%d %s)", r.Size.objects(), r.Seed.Requests, r.Seed.How),
			secs(r.Seed.Duration), "s", "", ""},
		{"seeding rate", fmt.Sprintf("%.0f", float64(r.Size.units())/r.Seed.Duration.Seconds()), "units/s", "", ""},
	}
	for _, l := range fl.Lists {
		rows = append(rows, row{fmt.Sprintf("mean size of one of the %s in the LIST", l.Kind),
			fmt.Sprintf("%.1f", float64(l.Bytes)/float64(max(l.Objects, 1))/1024), "KB", "", meanSizeTarget[l.Kind]})
	}
	for _, l := range fl.Lists {
		rows = append(rows, row{fmt.Sprintf("floor: bare LIST %s alone, client-go raw JSON (%.1f MB, median of %d)", l.Kind, float64(l.Bytes)/(1<<20), floorRuns),
			secs(l.Took), "s", ratio(l.Took, floor), ""})
	}
	rows = append(rows,
		row{fmt.Sprintf("FLOOR: the %d bare LISTs at once, before each start", len(fl.Lists)) + floorNote, secs(floor), "s", "1.00x", ""},
		row{fmt.Sprintf("API server CPU serving the %d bare LISTs", len(fl.Lists)) + floorCPUNote, secs(floorCPU), "s", "", ""},
	)
	if fl.Kubectl != "" {
		rows = append(rows,
			row{"kubectl get --raw " + appsPath, secs(fl.KubectlRaw), "s", ratio(fl.KubectlRaw, floor), ""},
			row{"kubectl get applications.argoproj.io -A -o json", secs(fl.KubectlJSON), "s", ratio(fl.KubectlJSON, floor), ""},
		)
	}
	var prefixes []string
	var worstPrefix time.Duration
	for _, d := range c.FilterPrefixes {
		prefixes = append(prefixes, ms(d))
		worstPrefix = max(worstPrefix, d)
	}
	var sorts []string
	for _, s := range c.Sorts {
		sorts = append(sorts, s.Mode+" "+ms(s.Took))
	}
	rows = append(rows,
		row{"[in-process] exec -> complete model (every first list in the store)" + modelNote, secs(model), "s", ratio(model, floor), "<= 1.3x"},
		row{fmt.Sprintf("[in-process] exec -> first frame (showed %d units)", firstUnits) + firstNote, secs(first), "s", ratio(first, floor), ""},
		row{fmt.Sprintf("[in-process] exec -> first full screen (all %d units, %dx%d)", units, screenW, screenH) + fullNote, secs(full), "s", ratio(full, floor), ""},
		row{"[in-process] CPU used from exec to the full screen" + startCPUNote, secs(startCPU), "s", "", ""},
		row{"[in-process] API server CPU serving that start (its LISTs, watches and checks; ratio to the bare LISTs' server CPU)" + serverCPUNote,
			secs(serverCPU), "s", ratio(serverCPU, floorCPU), ""},
		row{"[in-process] peak RSS (VmHWM) at the full screen (the bench binary: its harness's code is mapped too)", mb(c.PeakRSS), "MB", "", ""},
		row{"[in-process] RSS at the full screen / after forced GC", mb(c.RSSComplete) + " / " + mb(c.RSSAfterGC.RSS), "MB", "", ""},
		row{"[in-process] RSS after GC: private (heap, stacks) / the binary's mapped pages", mb(c.RSSAfterGC.Anon) + " / " + mb(c.RSSAfterGC.File), "MB", "", ""},
		row{"[in-process] Go heap in use after GC (HeapInuse)", mb(c.HeapInuseGC), "MB", "", ""},
		row{"[in-process] bytes kept per unit (HeapInuse after GC / units)", fmt.Sprintf("%.0f", float64(c.HeapInuseGC)/float64(max(units, 1))), "B/unit", "", ""},
		row{fmt.Sprintf("[in-process] CPU while idle (%v, fleet watched, %d frames, %d of them batches, %d collections)", c.IdleFor, c.IdleFrames, c.IdleBatches, c.IdleCollections), fmt.Sprintf("%.2f", c.IdleCPU), "% of a core", "", "< 1"},
	)
	rows = append(rows, r.keystrokeRows()...)
	if t := c.Tree; t.Handle.N > 0 {
		rows = append(rows,
			row{fmt.Sprintf("[in-process] tree view (the ApplicationSets over their Applications, all open): keystroke Update+View, median / p99 / max (n=%d)", t.Handle.N),
				ms(t.Handle.Median) + " / " + ms(t.Handle.P99) + " / " + ms(t.Handle.Max), "ms", "", "p99 < 16"},
			row{"[in-process] tree view: keystroke CPU time, median / p99; latency incl. waits, median / p99",
				ms(t.CPU.Median) + " / " + ms(t.CPU.P99) + "; " + ms(t.Latency.Median) + " / " + ms(t.Latency.P99), "ms", "", "p99 < 16"})
		for _, label := range []string{"move", "filter", "sort", "fold"} {
			if st, ok := t.ByLabel[label]; ok {
				rows = append(rows, row{fmt.Sprintf("[in-process]   tree %s keys (n=%d): Update+View median / p99; CPU median / p99", label, st.Handle.N),
					ms(st.Handle.Median) + " / " + ms(st.Handle.P99) + "; " + ms(st.CPU.Median) + " / " + ms(st.CPU.P99), "ms", "", "p99 < 16"})
			}
		}
	}
	rows = append(rows,
		row{fmt.Sprintf("[in-process] filter: '/' then each prefix of %q, per op", c.FilterText), strings.Join(prefixes, " "), "ms", "", "< 16"},
		row{"[in-process] filter: slowest prefix", ms(worstPrefix), "ms", "", "< 16"},
		row{"[in-process] sort modes (state, age, name), per op", strings.Join(sorts, ", "), "ms", "", "< 16"},
		row{"[in-process] peak RSS (VmHWM) at the end (after the churn)", mb(c.PeakRSSEnd), "MB", "", ""},
	)
	switch b := r.Binary; {
	case b != nil:
		bfull, bfullNote := spread(b.FullScreen)
		rows = append(rows,
			row{"[binary] driftdeck status -o json: exec -> exit (model complete, printed)", secs(b.StatusRun), "s", ratio(b.StatusRun, floor), ""},
			row{fmt.Sprintf("[binary] TUI in a pty: exec -> screen shows all %d units", units) + bfullNote, secs(bfull), "s", ratio(bfull, floor), ""},
			row{"[binary] TUI peak RSS (VmHWM) / RSS, 3 s after the full screen", mb(b.Memory.HWM) + " / " + mb(b.Memory.RSS), "MB", "", "< 100"},
			row{"[binary] TUI RSS then: private / the binary's mapped pages", mb(b.Memory.Anon) + " / " + mb(b.Memory.File), "MB", "", ""},
		)
		rows = append(rows, binaryLoadIdleRows(b, "< 1")...)
	case r.BinaryError != "":
		rows = append(rows, row{"[binary] not measured: " + r.BinaryError, "", "", "", ""})
	}
	return rows
}

// binaryLoadIdleRows are the binary's memory under the status stream and
// its CPU while idle, against idleTarget (% of a core).
func binaryLoadIdleRows(b *binaryResult, idleTarget string) []row {
	return []row{
		row{fmt.Sprintf("[binary] TUI peak RSS (VmHWM) / RSS after %v of %.0f status changes a second, the cursor moving 20 times a second", b.LoadFor, b.LoadRate),
			mb(b.Loaded.HWM) + " / " + mb(b.Loaded.RSS), "MB", "", "< 100"},
		row{fmt.Sprintf("[binary] TUI CPU while idle (%v, %d ticks of 10 ms)", b.IdleFor, idleTicks(b.IdleCPU, b.IdleFor)), fmt.Sprintf("%.2f", b.IdleCPU), "% of a core", "", idleTarget},
	}
}

// keystrokeRows are the figures of the keys typed while status changes
// stream in, and of the batches that carried them.
func (r *report) keystrokeRows() []row {
	c := r.Child
	rows := []row{
		row{fmt.Sprintf("[in-process] status changes streamed during keystrokes (%d failed)", r.Churn.Failed), fmt.Sprintf("%.1f", r.Churn.Rate), "changes/s", "", "100"},
		row{fmt.Sprintf("[in-process] keystroke Update+View, median / p99 / max (n=%d)", c.KeyHandle.N),
			ms(c.KeyHandle.Median) + " / " + ms(c.KeyHandle.P99) + " / " + ms(c.KeyHandle.Max), "ms", "", "p99 < 16"},
		row{"[in-process] keystroke CPU time (the loop thread's clock), median / p99 / max",
			ms(c.KeyCPU.Median) + " / " + ms(c.KeyCPU.P99) + " / " + ms(c.KeyCPU.Max), "ms", "", ""},
		row{"[in-process] keystroke latency incl. waiting behind batches and ticks, median / p99",
			ms(c.KeyLatency.Median) + " / " + ms(c.KeyLatency.P99), "ms", "", "p99 < 16"},
	}
	for _, label := range []string{"move", "filter", "sort"} {
		if st, ok := c.ByLabel[label]; ok {
			rows = append(rows, row{fmt.Sprintf("[in-process]   %s keys (n=%d): Update+View median / p99; CPU median / p99", label, st.Handle.N),
				ms(st.Handle.Median) + " / " + ms(st.Handle.P99) + "; " + ms(st.CPU.Median) + " / " + ms(st.CPU.P99), "ms", "", "p99 < 16"})
		}
	}
	return append(rows,
		row{fmt.Sprintf("[in-process] batch of changes Update+View, median / p99; CPU median / p99 (n=%d)", c.Batch.N),
			ms(c.Batch.Median) + " / " + ms(c.Batch.P99) + "; " + ms(c.BatchCPU.Median) + " / " + ms(c.BatchCPU.P99), "ms", "", ""},
	)
}

// markdown renders the one table plus the machine it ran on.
func (r *report) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# driftdeck fleet benchmark\n\n")
	fmt.Fprintf(&b, "%s (%d units), CRDs: %s.\n", r.Size.objects(), r.Size.units(), r.CRDs)
	fmt.Fprintf(&b, "[in-process]: driftdeck's own code (fleet.New + AddRetrying as the TUI connects, ui.New + Update/View at %dx%d, the binary's pump, clock and collector setting) in a child process, timed from its exec; "+
		"start-up figures are medians of %d start-ups, each right after one floor sample, the rest come from one full run. "+
		"Resident memory is driftdeck's in the [binary] rows; the [in-process] child is the bench binary, whose harness (the control plane's client libraries) adds its own mapped pages. "+
		"[binary]: the built driftdeck binary, seen from outside (the TUI in a pseudo-terminal read through a terminal emulator that answers its queries). "+
		"Ratios are to the median floor.\n\n", screenW, screenH, len(r.Starts))
	writeTable(&b, r.rows())
	r.writeMachine(&b)
	return b.String()
}

// writeMachine renders the machine the run was on, its load and the time
// taken, below the table.
func (r *report) writeMachine(b *strings.Builder) {
	m := r.Machine
	fmt.Fprintf(b, "\nMachine: nproc %d, %s, %s (%s/%s). Load average %s at start, %s at the end. Whole run %s.\n",
		m.NProc, m.CPU, m.Go, runtime.GOOS, runtime.GOARCH, m.LoadStart, m.LoadEnd, m.TotalTaken.Round(time.Second))
	fmt.Fprintf(b, "Targets (DESIGN.md section 6) are shown for reading only: the run never fails on them.\n")
}

// writeTable renders rows as a Markdown table, numbers right-aligned.
func writeTable(b *strings.Builder, rows []row) {
	head := row{"figure", "value", "unit", "vs floor", "target"}
	w := [5]int{}
	for _, x := range append([]row{head}, rows...) {
		for i, s := range []string{x.figure, x.value, x.unit, x.ratio, x.target} {
			w[i] = max(w[i], len(s))
		}
	}
	line := func(x row) {
		cells := []string{x.figure, x.value, x.unit, x.ratio, x.target}
		b.WriteString("|")
		for i, s := range cells {
			if i == 1 || i == 3 {
				fmt.Fprintf(b, " %*s |", w[i], s)
			} else {
				fmt.Fprintf(b, " %-*s |", w[i], s)
			}
		}
		b.WriteString("\n")
	}
	line(head)
	b.WriteString("|")
	for i := range w {
		if i == 1 || i == 3 {
			b.WriteString(" " + strings.Repeat("-", w[i]-1) + ": |")
		} else {
			b.WriteString(" " + strings.Repeat("-", w[i]) + " |")
		}
	}
	b.WriteString("\n")
	for _, x := range rows {
		line(x)
	}
}
