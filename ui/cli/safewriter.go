package cli

import (
	"bytes"
	"io"

	"github.com/driftdeck/driftdeck/backend/safetext"
)

// safeLines writes text that comes from a cluster (a diff of its objects)
// line by line with control characters and escape sequences made visible.
// Whole lines are escaped, so a UTF-8 character split between two writes is
// not mistaken for a bad byte. Close writes a last line without a newline.
type safeLines struct {
	w    io.Writer
	part []byte
}

func (s *safeLines) Write(p []byte) (int, error) {
	s.part = append(s.part, p...)
	for {
		i := bytes.IndexByte(s.part, '\n')
		if i < 0 {
			return len(p), nil
		}
		if _, err := io.WriteString(s.w, safetext.Visible(string(s.part[:i]))+"\n"); err != nil {
			return 0, err
		}
		s.part = s.part[i+1:]
	}
}

func (s *safeLines) Close() error {
	if len(s.part) == 0 {
		return nil
	}
	_, err := io.WriteString(s.w, safetext.Visible(string(s.part)))
	s.part = nil
	return err
}
