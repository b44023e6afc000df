package ui

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/themes"
	"github.com/driftdeck/driftdeck/views/list"
)

// command is one ":" command.
type command struct {
	name, usage, help string
	run               func(a *App, args []string) (tea.Cmd, error)
}

var commands []command

func init() {
	engine := func(e model.Engine) func(*App, []string) (tea.Cmd, error) {
		return func(a *App, _ []string) (tea.Cmd, error) {
			s := a.list().m.Scope()
			s.Engine, s.Family = e, ""
			a.list().m.SetScope(s)
			return nil, nil
		}
	}
	family := func(name string) func(*App, []string) (tea.Cmd, error) {
		return func(a *App, _ []string) (tea.Cmd, error) {
			s := a.list().m.Scope()
			s.Engine, s.Family = "", name
			a.list().m.SetScope(s)
			return nil, nil
		}
	}
	commands = []command{
		{"apps", "apps", "only Argo CD Applications", engine(model.EngineArgoCD)},
		{"stacks", "stacks", "only Pulumi Stacks", engine(model.EnginePulumi)},
		{"flux", "flux", "only Flux Kustomizations and HelmReleases", family("flux")},
		{"kustomizations", "kustomizations (or ks)", "only Flux Kustomizations", engine(model.EngineKustomization)},
		{"helmreleases", "helmreleases (or hr)", "only Flux HelmReleases", engine(model.EngineHelmRelease)},
		{"terraform", "terraform (or tf)", "only tofu-controller Terraforms", engine(model.EngineTerraform)},
		{"appsets", "appsets", "only Argo CD ApplicationSets", engine(model.EngineApplicationSet)},
		{"tree", "tree", "each unit under its parent (the t key)", func(a *App, _ []string) (tea.Cmd, error) {
			a.list().m.SetTree(true)
			return nil, nil
		}},
		{"flat", "flat", "the flat list (the t key again)", func(a *App, _ []string) (tea.Cmd, error) {
			a.list().m.SetTree(false)
			return nil, nil
		}},
		{"all", "all", "every unit: clears the engine, state, namespace and context scope", func(a *App, _ []string) (tea.Cmd, error) {
			a.list().m.SetScope(list.Scope{})
			return nil, nil
		}},
		{"ns", "ns <namespace>", "only one namespace (:ns alone for all)", func(a *App, args []string) (tea.Cmd, error) {
			s := a.list().m.Scope()
			s.Namespace = ""
			if len(args) > 0 && args[0] != "all" {
				if have := a.namespaceNames(); !slices.Contains(have, args[0]) {
					return nil, fmt.Errorf("no unit is in namespace %q (have: %s)", args[0], strings.Join(have, ", "))
				}
				s.Namespace = args[0]
			}
			a.list().m.SetScope(s)
			return nil, nil
		}},
		{"ctx", "ctx <context>", "only one kubeconfig context (:ctx alone for all)", func(a *App, args []string) (tea.Cmd, error) {
			s := a.list().m.Scope()
			s.Context = ""
			if len(args) > 0 && args[0] != "all" {
				if !a.hasContext(args[0]) {
					return nil, fmt.Errorf("no context %q is connected (have: %s)", args[0], strings.Join(a.contextNames(), ", "))
				}
				s.Context = args[0]
			}
			a.list().m.SetScope(s)
			return nil, nil
		}},
		{"sort", "sort name|state|age", "order the list", func(a *App, args []string) (tea.Cmd, error) {
			if len(args) != 1 {
				return nil, fmt.Errorf("sort: want name, state or age")
			}
			m, ok := list.ParseSort(args[0])
			if !ok {
				return nil, fmt.Errorf("sort %q: want name, state or age", args[0])
			}
			a.list().m.SetSort(m)
			return nil, nil
		}},
		{"freeze", "freeze", "pause the marked units (or every shown one), with one reason and expiry", func(a *App, _ []string) (tea.Cmd, error) {
			return a.startBulk(actions.Pause), nil
		}},
		{"thaw", "thaw", "resume the marked units (or every shown one), each to its recorded state", func(a *App, _ []string) (tea.Cmd, error) {
			return a.startBulk(actions.Resume), nil
		}},
		{"theme", "theme " + strings.Join(themes.Names, "|"), "switch colours", func(a *App, args []string) (tea.Cmd, error) {
			if len(args) != 1 {
				return nil, fmt.Errorf("theme: want one of %s", strings.Join(themes.Names, ", "))
			}
			return nil, a.setTheme(args[0])
		}},
		{"help", "help", "all keys and commands", func(a *App, _ []string) (tea.Cmd, error) {
			a.push(newHelpScreen())
			return nil, nil
		}},
		{"quit", "quit (or q)", "leave driftdeck", func(*App, []string) (tea.Cmd, error) { return tea.Quit, nil }},
	}
	for _, st := range list.ScopeStates {
		state := st
		commands = append(commands, command{state, state, "only " + state + " units", func(a *App, _ []string) (tea.Cmd, error) {
			s := a.list().m.Scope()
			s.State = state
			a.list().m.SetScope(s)
			return nil, nil
		}})
	}
}

func findCommand(name string) (command, bool) {
	switch name {
	case "q", "q!", "exit":
		name = "quit"
	case "app", "applications", "argocd":
		name = "apps"
	case "stack", "pulumi":
		name = "stacks"
	case "ks", "kustomization":
		name = "kustomizations"
	case "hr", "helmrelease":
		name = "helmreleases"
	case "tf", "terraforms", "tofu":
		name = "terraform"
	case "namespace":
		name = "ns"
	case "context":
		name = "ctx"
	}
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func (a *App) runCommand(line string) tea.Cmd {
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return nil
	}
	c, ok := findCommand(fields[0])
	if !ok {
		a.toastError(fmt.Sprintf("unknown command :%s (see ? for the list)", fields[0]))
		return nil
	}
	cmd, err := c.run(a, fields[1:])
	if err != nil {
		a.toastError(err.Error())
	}
	return cmd
}

// suggestions are the completions offered in the command bar: every command,
// and the namespaces and contexts present in the model.
func (a *App) suggestions() []string {
	seen := map[string]bool{}
	var out []string
	addOnce := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, c := range commands {
		addOnce(c.name)
	}
	var nss []string
	for _, u := range a.list().m.Shown() {
		if !seen["ns "+u.Key.Namespace] {
			seen["ns "+u.Key.Namespace] = true
			nss = append(nss, "ns "+u.Key.Namespace)
		}
	}
	sort.Strings(nss)
	out = append(out, nss...)
	for _, c := range a.contextNames() {
		addOnce("ctx " + c)
	}
	for _, s := range []string{"sort name", "sort state", "sort age"} {
		addOnce(s)
	}
	for _, n := range themes.Names {
		addOnce("theme " + n)
	}
	return out
}

// namespaceNames are the namespaces that hold a unit, in order: :ns
// refuses any other, as :ctx refuses a context not connected (k9s refuses an
// unknown namespace too) rather than show an empty list without a word.
func (a *App) namespaceNames() []string {
	seen := map[string]bool{}
	var out []string
	for _, u := range a.units {
		if !seen[u.Key.Namespace] {
			seen[u.Key.Namespace] = true
			out = append(out, u.Key.Namespace)
		}
	}
	sort.Strings(out)
	return out
}

func (a *App) contextNames() []string {
	var out []string
	for _, st := range a.status {
		out = append(out, st.Context)
	}
	return out
}

func (a *App) hasContext(name string) bool {
	for _, c := range a.contextNames() {
		if c == name {
			return true
		}
	}
	return false
}

func (a *App) startInput(mode inputMode, value string) tea.Cmd {
	a.mode = mode
	a.input.Reset()
	a.input.Prompt = ""
	a.input.SetValue(value)
	a.input.CursorEnd()
	a.input.ShowSuggestions = mode == modeCommand
	if mode == modeCommand {
		a.input.SetSuggestions(a.suggestions())
		a.input.Placeholder = "apps, stacks, flux, terraform, ns <name>, stuck, paused, freeze … (tab cycles through the completions)"
	} else {
		a.input.SetSuggestions(nil)
		a.input.Placeholder = "text or regex over " + list.FilterFields + "; ! inverts; ^ and $ anchor to a field"
	}
	a.filterWas = ""
	if mode == modeFilter {
		a.filterWas = value
	}
	a.historyPos = len(a.history)
	a.completion = completion{}
	return a.input.Focus()
}

// filterNote tells, while "/" edits the filter in force rather than a new
// one, that it does and how to start over.
func (a *App) filterNote() string {
	if a.filterWas == "" || a.input.Value() == "" {
		return "" // a new filter: the placeholder says what it matches
	}
	return "  editing the filter in force: enter keeps the edit, ctrl+u starts over, esc clears it"
}

func (a *App) inputKey(msg tea.KeyPressMsg) tea.Cmd {
	if k := msg.String(); a.mode == modeCommand && (k == "tab" || k == "shift+tab") {
		step := 1
		if k == "shift+tab" {
			step = -1
		}
		a.cycleCompletion(step)
		return nil
	}
	a.completion = completion{}
	switch msg.String() {
	case "esc":
		if a.mode == modeFilter {
			a.list().m.SetFilter("")
		}
		a.endInput()
		return nil
	case "enter":
		value := strings.TrimSpace(a.input.Value())
		mode := a.mode
		a.endInput()
		if mode == modeFilter {
			a.list().m.SetFilter(value)
			return nil
		}
		if value != "" && (len(a.history) == 0 || a.history[len(a.history)-1] != value) {
			a.history = append(a.history, value)
		}
		return a.runCommand(value)
	case "up":
		if a.mode == modeCommand && a.historyPos > 0 {
			a.historyPos--
			a.input.SetValue(a.history[a.historyPos])
			a.input.CursorEnd()
		}
		return nil
	case "down":
		if a.mode == modeCommand && a.historyPos < len(a.history) {
			a.historyPos++
			value := ""
			if a.historyPos < len(a.history) {
				value = a.history[a.historyPos]
			}
			a.input.SetValue(value)
			a.input.CursorEnd()
		}
		return nil
	}
	var cmd tea.Cmd
	a.input, cmd = a.input.Update(msg)
	if a.mode == modeFilter {
		// Filter as you type: the list answers every keystroke.
		a.list().m.SetFilter(a.input.Value())
	}
	return cmd
}

func (a *App) endInput() {
	a.mode = modeNormal
	a.input.Blur()
}

func wrapANSI(s string, w int) string { return ansi.Wrap(s, max(w, 10), "") }
