package doctor

import "strings"

// Quote makes a word safe to paste into sh: as is when it holds only
// characters sh takes literally, else in single quotes, each quote inside
// closing them, escaped, and opening them again. Every value of a printed
// command that comes from a cluster (a name, a lock id) goes through it: a
// value with a space, a ; or a $( must not run as anything but one argument.
func Quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// command is a command line of quoted words.
func command(words ...string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = Quote(w)
	}
	return strings.Join(q, " ")
}
