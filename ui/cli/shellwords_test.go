package cli

import (
	"reflect"
	"strings"
	"testing"
)

// shellWords splits a line into words as sh does for plain words, 'single
// quotes' (literal), "double quotes" (\" and \\ escaped inside) and a
// backslash outside quotes, without expansions: how a user's shell reads a
// command line the README or doctor prints. && is a word of its own.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	inWord := false
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\'':
			end := strings.IndexRune(string(rs[i+1:]), '\'')
			if end < 0 {
				t.Fatalf("unbalanced quotes in %q", line)
			}
			seg := []rune(string(rs[i+1:])[:end])
			cur.WriteString(string(seg))
			i += len(seg) + 1
			inWord = true
		case r == '"':
			i++
			for ; i < len(rs) && rs[i] != '"'; i++ {
				if rs[i] == '\\' && i+1 < len(rs) && (rs[i+1] == '"' || rs[i+1] == '\\') {
					i++
				}
				cur.WriteRune(rs[i])
			}
			if i >= len(rs) {
				t.Fatalf("unbalanced quotes in %q", line)
			}
			inWord = true
		case r == '\\' && i+1 < len(rs):
			i++
			cur.WriteRune(rs[i])
			inWord = true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
			}
			inWord = false
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

func TestShellWordsSplitAsShDoes(t *testing.T) {
	for line, want := range map[string][]string{
		`driftdeck pause a/b/c --reason "INC-1: db"`:       {"driftdeck", "pause", "a/b/c", "--reason", "INC-1: db"},
		`x --lock 'id with '\''quote'\'' and $(rm)'`:       {"x", "--lock", "id with 'quote' and $(rm)"},
		`a  b\ c "d\"e" '' && f`:                           {"a", "b c", `d"e`, "", "&&", "f"},
		`kubectl patch -p '[{"op":"remove","path":"/x"}]'`: {"kubectl", "patch", "-p", `[{"op":"remove","path":"/x"}]`},
	} {
		if got := shellWords(t, line); !reflect.DeepEqual(got, want) {
			t.Errorf("shellWords(%q) = %q, want %q", line, got, want)
		}
	}
}
