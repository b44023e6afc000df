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
	scope := func(edit func(s *list.Scope)) func(*App, []string) (tea.Cmd, error) {
		return func(a *App, _ []string) (tea.Cmd, error) { return a.narrow(edit), nil }
	}
	engine := func(e model.Engine) func(*App, []string) (tea.Cmd, error) {
		return scope(func(s *list.Scope) { s.Engine, s.Family = e, "" })
	}
	family := func(name string) func(*App, []string) (tea.Cmd, error) {
		return scope(func(s *list.Scope) { s.Engine, s.Family = "", name })
	}
	// A scope command per engine, from the engines' own descriptions; the
	// Flux family after the Stacks.
	for _, info := range model.EngineInfos() {
		usage := info.Scope
		if short := info.Aliases[0]; len(short) <= 2 {
			usage += " (or " + short + ")"
		}
		commands = append(commands, command{info.Scope, usage, "only " + info.Units, engine(info.Engine)})
		if info.Engine == model.EnginePulumi {
			commands = append(commands, command{"flux", "flux", "only Flux Kustomizations and HelmReleases", family("flux")})
		}
	}
	commands = append(commands, []command{
		{"requests", "requests", "change requests: review one with A (approve) or D (reject; on your own, cancel)", func(a *App, _ []string) (tea.Cmd, error) {
			s := &requestsScreen{}
			s.refresh(a)
			a.push(s)
			return nil, nil
		}},
		{"tree", "tree", "each unit under its parent (the t key)", func(a *App, _ []string) (tea.Cmd, error) {
			return a.broadcast(listTreeMsg{on: true}), nil
		}},
		{"flat", "flat", "the flat list (the t key again)", func(a *App, _ []string) (tea.Cmd, error) {
			return a.broadcast(listTreeMsg{on: false}), nil
		}},
		{"all", "all", "every unit: clears the engine, state, namespace and context scope", scope(func(s *list.Scope) { *s = list.Scope{} })},
		{"ns", "ns <namespace>", "only one namespace (:ns alone for all)", func(a *App, args []string) (tea.Cmd, error) {
			ns := ""
			if len(args) > 0 && args[0] != "all" {
				if have := a.namespaceNames(); !slices.Contains(have, args[0]) {
					return nil, fmt.Errorf("no unit is in namespace %q (have: %s)", args[0], strings.Join(have, ", "))
				}
				ns = args[0]
			}
			return a.narrow(func(s *list.Scope) { s.Namespace = ns }), nil
		}},
		{"ctx", "ctx <context>", "only one kubeconfig context (:ctx alone for all)", func(a *App, args []string) (tea.Cmd, error) {
			ctx := ""
			if len(args) > 0 && args[0] != "all" {
				if have := a.contextNames(); !slices.Contains(have, args[0]) {
					return nil, fmt.Errorf("no context %q is connected (have: %s)", args[0], strings.Join(have, ", "))
				}
				ctx = args[0]
			}
			return a.narrow(func(s *list.Scope) { s.Context = ctx }), nil
		}},
		{"sort", "sort name|state|age", "order the list", func(a *App, args []string) (tea.Cmd, error) {
			if len(args) != 1 {
				return nil, fmt.Errorf("sort: want name, state or age")
			}
			m, ok := list.ParseSort(args[0])
			if !ok {
				return nil, fmt.Errorf("sort %q: want name, state or age", args[0])
			}
			return a.broadcast(listSortMsg{by: m}), nil
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
	}...)
	for _, st := range list.ScopeStates {
		state := st
		commands = append(commands, command{state, state, "only " + state + " units", scope(func(s *list.Scope) { s.State = state })})
	}
}

func findCommand(name string) (command, bool) {
	if e, err := model.ParseEngine(name); err == nil {
		name = model.InfoOf(e).Scope
	}
	switch name {
	case "q", "q!", "exit":
		name = "quit"
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

// narrow changes the list's scope, as a message the list takes.
func (a *App) narrow(edit func(s *list.Scope)) tea.Cmd {
	return a.broadcast(listScopeMsg{edit: edit})
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

// startInput opens the prompt; ":" offers the commands and what the
// units hold as completions.
func (a *App) startInput(mode inputMode, value string) tea.Cmd {
	var suggestions []string
	if mode == modeCommand {
		suggestions = a.suggestions()
	}
	return a.bar.start(mode, value, suggestions)
}

func wrapANSI(s string, w int) string { return ansi.Wrap(s, max(w, 10), "") }
