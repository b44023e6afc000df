package diff

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/driftdeck/driftdeck/themes"
)

// paint is a style reduced to the escape sequences around its text. The
// diff styles are plain colours and attributes, so wrapping a row in them is
// string concatenation instead of a full lipgloss render (which measures the
// text again) for every cell of every frame.
type paint struct{ open, close string }

func paintOf(s lipgloss.Style) paint {
	open, close, _ := strings.Cut(s.Render("\x00"), "\x00")
	return paint{open, close}
}

func (p paint) on(s string) string {
	if s == "" {
		return ""
	}
	return p.open + s + p.close
}

// paints are the theme's styles the body rows use.
type paints struct {
	dim, add, del, info, plain paint
}

func paintsOf(t *themes.Theme) paints {
	return paints{dim: paintOf(t.Dim), add: paintOf(t.DiffAdd), del: paintOf(t.DiffDel), info: paintOf(t.Info)}
}

// width measures text in cells, quickly for printable ASCII (most of YAML).
func width(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e {
			return ansi.StringWidth(s)
		}
	}
	return len(s)
}
