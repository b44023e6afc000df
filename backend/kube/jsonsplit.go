package kube

import (
	"fmt"
	"io"
)

// valueReader cuts a JSON stream into the raw bytes of its values without
// decoding them. It only finds where each value ends (strings, escapes and
// nesting), which is several times cheaper than encoding/json's scanner;
// every value it returns is then decoded, and validated, by encoding/json.
// Reading a list through json.Decoder scanned each item four times over.
type valueReader struct {
	r   io.Reader
	buf []byte
	pos int // the next unread byte in buf
	err error
}

func newValueReader(r io.Reader) *valueReader {
	return &valueReader{r: r, buf: make([]byte, 0, 256<<10)}
}

// fill reads more of the stream, keeping buf[keep:] (and sliding it to the
// front when that makes room). It returns how far the kept bytes moved.
func (v *valueReader) fill(keep int) (moved int, err error) {
	if v.err != nil {
		return 0, v.err
	}
	if keep > 0 && len(v.buf) == cap(v.buf) {
		n := copy(v.buf, v.buf[keep:])
		v.buf, moved = v.buf[:n], keep
		v.pos -= keep
	}
	if len(v.buf) == cap(v.buf) {
		v.buf = append(v.buf, 0)[:len(v.buf)] // grow: a value larger than the buffer
	}
	n, err := v.r.Read(v.buf[len(v.buf):cap(v.buf)])
	v.buf = v.buf[:len(v.buf)+n]
	if n > 0 {
		return moved, nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	v.err = err
	return moved, err
}

// next skips whitespace and returns the next byte without consuming it.
func (v *valueReader) next() (byte, error) {
	for {
		for v.pos < len(v.buf) {
			switch c := v.buf[v.pos]; c {
			case ' ', '\t', '\n', '\r':
				v.pos++
			default:
				return c, nil
			}
		}
		if _, err := v.fill(v.pos); err != nil {
			return 0, err
		}
	}
}

// expect consumes the next byte, which must be c.
func (v *valueReader) expect(c byte) error {
	got, err := v.next()
	if err != nil {
		return err
	}
	if got != c {
		return fmt.Errorf("JSON: found %q where %q was expected", got, c)
	}
	v.pos++
	return nil
}

// value returns the raw bytes of the next value. They are valid until the
// next call.
func (v *valueReader) value() ([]byte, error) {
	c, err := v.next()
	if err != nil {
		return nil, err
	}
	start, i := v.pos, v.pos
	depth, inString, escaped := 0, false, false
	for {
		for ; i < len(v.buf); i++ {
			b := v.buf[i]
			switch {
			case c != '{' && c != '[' && c != '"':
				if isDelimiter(b) {
					if i == start {
						return nil, fmt.Errorf("JSON: unexpected %q", b)
					}
					return v.take(start, i), nil // the end of a number or literal
				}
			case inString:
				switch {
				case escaped:
					escaped = false
				case b == '\\':
					escaped = true
				case b == '"':
					inString = false
					if depth == 0 {
						return v.take(start, i+1), nil
					}
				}
			case b == '"':
				inString = true
			case b == '{' || b == '[':
				depth++
			case b == '}' || b == ']':
				depth--
				if depth < 0 {
					return nil, fmt.Errorf("JSON: unexpected %q", b)
				}
				if depth == 0 {
					return v.take(start, i+1), nil
				}
			}
		}
		moved, err := v.fill(start)
		if err != nil {
			return nil, err
		}
		start, i = start-moved, i-moved
	}
}

func isDelimiter(b byte) bool {
	switch b {
	case ',', '}', ']', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

func (v *valueReader) take(start, end int) []byte {
	v.pos = end
	return v.buf[start:end]
}
