// Package themes holds driftdeck's palettes: dark, light, high-contrast and
// no-color. Views take every style from a Theme, never from a literal colour.
package themes

import (
	"fmt"
	"image/color"
	"os"
	"strings"

	"charm.land/lipgloss/v2"
)

// Theme is a complete set of styles.
type Theme struct {
	Name string

	Title, Badge, DemoBadge, Dim, Bold lipgloss.Style
	Good, Warn, Bad, Info, Accent      lipgloss.Style

	TableHeader, Selected, Marked, Changed lipgloss.Style

	FooterKey, FooterDesc lipgloss.Style
	Dialog, DialogTitle   lipgloss.Style
	ToastInfo, ToastError lipgloss.Style
	TabActive, TabIdle    lipgloss.Style
	DiffAdd, DiffDel      lipgloss.Style
}

type palette struct {
	fg, dim, good, warn, bad, info, accent, selBg, selFg, markFg, changedBg color.Color
}

func build(name string, p palette, highContrast bool) *Theme {
	s := lipgloss.NewStyle
	t := &Theme{Name: name}
	t.Title = s().Bold(true).Foreground(p.accent)
	t.Badge = s().Bold(true).Foreground(p.selFg).Background(p.info).Padding(0, 1)
	t.DemoBadge = s().Bold(true).Foreground(p.selFg).Background(p.warn).Padding(0, 1)
	t.Dim = s().Foreground(p.dim)
	t.Bold = s().Bold(true)
	t.Good = s().Foreground(p.good)
	t.Warn = s().Foreground(p.warn)
	t.Bad = s().Foreground(p.bad).Bold(true)
	t.Info = s().Foreground(p.info)
	t.Accent = s().Foreground(p.accent)
	t.TableHeader = s().Bold(true).Foreground(p.dim)
	t.Selected = s().Foreground(p.selFg).Background(p.selBg).Bold(true)
	t.Marked = s().Foreground(p.markFg).Bold(true)
	t.Changed = s().Background(p.changedBg)
	t.FooterKey = s().Bold(true).Foreground(p.accent)
	t.FooterDesc = s().Foreground(p.dim)
	t.Dialog = s().Border(lipgloss.RoundedBorder()).BorderForeground(p.accent).Padding(0, 1)
	t.DialogTitle = s().Bold(true).Foreground(p.accent)
	t.ToastInfo = s().Foreground(p.selFg).Background(p.info).Padding(0, 1)
	t.ToastError = s().Foreground(p.selFg).Background(p.bad).Bold(true).Padding(0, 1)
	// Tabs carry no padding: views frame them ([Active], " Idle ") so the
	// active one shows without colour too.
	t.TabActive = s().Bold(true).Foreground(p.selFg).Background(p.accent)
	t.TabIdle = s().Foreground(p.dim)
	t.DiffAdd = s().Foreground(p.good)
	t.DiffDel = s().Foreground(p.bad)
	if highContrast {
		t.Dim = s().Foreground(p.fg)
		t.FooterDesc = s().Foreground(p.fg)
		t.Good, t.Warn, t.Info = t.Good.Bold(true), t.Warn.Bold(true), t.Info.Bold(true)
	}
	return t
}

// Dark suits dark terminal backgrounds.
func Dark() *Theme {
	return build("dark", palette{
		fg: lipgloss.Color("#e4e4e4"), dim: lipgloss.Color("#8a8a8a"), good: lipgloss.Color("#5fd75f"),
		warn: lipgloss.Color("#ffaf00"), bad: lipgloss.Color("#ff5f5f"), info: lipgloss.Color("#5fafff"),
		accent: lipgloss.Color("#87d7ff"), selBg: lipgloss.Color("#005f87"), selFg: lipgloss.Color("#ffffff"),
		markFg: lipgloss.Color("#ff87ff"), changedBg: lipgloss.Color("#3a3a00"),
	}, false)
}

// Light suits light terminal backgrounds.
func Light() *Theme {
	return build("light", palette{
		fg: lipgloss.Color("#1c1c1c"), dim: lipgloss.Color("#6c6c6c"), good: lipgloss.Color("#008700"),
		warn: lipgloss.Color("#af5f00"), bad: lipgloss.Color("#d70000"), info: lipgloss.Color("#005faf"),
		accent: lipgloss.Color("#005f87"), selBg: lipgloss.Color("#005faf"), selFg: lipgloss.Color("#ffffff"),
		markFg: lipgloss.Color("#af00af"), changedBg: lipgloss.Color("#ffffaf"),
	}, false)
}

// HighContrast uses the terminal's basic bright colours and bold text.
func HighContrast() *Theme {
	return build("high-contrast", palette{
		fg: lipgloss.Color("15"), dim: lipgloss.Color("15"), good: lipgloss.Color("10"), warn: lipgloss.Color("11"),
		bad: lipgloss.Color("9"), info: lipgloss.Color("14"), accent: lipgloss.Color("14"), selBg: lipgloss.Color("15"),
		selFg: lipgloss.Color("0"), markFg: lipgloss.Color("13"), changedBg: lipgloss.Color("4"),
	}, true)
}

// NoColor uses no colour at all, only bold, underline and reverse video, as
// NO_COLOR asks.
func NoColor() *Theme {
	s := lipgloss.NewStyle
	plain := s()
	t := &Theme{Name: "no-color"}
	t.Title, t.Bold, t.Bad = s().Bold(true), s().Bold(true), s().Bold(true)
	t.Badge, t.DemoBadge = s().Reverse(true).Padding(0, 1), s().Reverse(true).Bold(true).Padding(0, 1)
	t.Dim, t.Good, t.Warn, t.Info, t.Accent = plain, plain, s().Bold(true), plain, s().Bold(true)
	t.TableHeader = s().Bold(true).Underline(true)
	t.Selected = s().Reverse(true)
	t.Marked = s().Bold(true)
	t.Changed = s().Underline(true)
	t.FooterKey, t.FooterDesc = s().Bold(true), plain
	t.Dialog = s().Border(lipgloss.NormalBorder()).Padding(0, 1)
	t.DialogTitle = s().Bold(true)
	t.ToastInfo, t.ToastError = s().Reverse(true).Padding(0, 1), s().Reverse(true).Bold(true).Padding(0, 1)
	t.TabActive, t.TabIdle = s().Reverse(true), s()
	t.DiffAdd, t.DiffDel = plain, plain
	return t
}

// Names lists the themes a user can pick.
var Names = []string{"auto", "dark", "light", "high-contrast", "no-color"}

// ByName returns a theme; "auto" (or "") picks dark or light from the
// terminal background. NO_COLOR in the environment always wins.
func ByName(name string, darkBackground bool) (*Theme, error) {
	if os.Getenv("NO_COLOR") != "" {
		return NoColor(), nil
	}
	switch strings.ToLower(name) {
	case "", "auto":
		if darkBackground {
			return Dark(), nil
		}
		return Light(), nil
	case "dark":
		return Dark(), nil
	case "light":
		return Light(), nil
	case "high-contrast", "highcontrast":
		return HighContrast(), nil
	case "no-color", "nocolor", "none":
		return NoColor(), nil
	}
	return nil, fmt.Errorf("unknown theme %q (want one of %s)", name, strings.Join(Names, ", "))
}
