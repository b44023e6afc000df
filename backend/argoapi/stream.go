package argoapi

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// errStreamEnded is a stream the server closed without an error.
var errStreamEnded = errors.New("the stream ended")

// eachResult reads one of argocd-server's streams (the gRPC gateway's
// newline-delimited JSON): each line's result goes to fn, an error line
// ends it as the server's Error, and so does an error of fn. what names
// the stream in messages; a line may hold up to max bytes.
func (c *Client) eachResult(r io.Reader, max int, what string, fn func(json.RawMessage) error) error {
	lines := bufio.NewScanner(r)
	lines.Buffer(make([]byte, 0, 64<<10), max)
	for lines.Scan() {
		var line struct {
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code    int    `json:"http_code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(lines.Bytes(), &line); err != nil {
			return fmt.Errorf("Argo CD API server %s: a line of %s is not the expected JSON: %w", c.cfg.Server, what, err)
		}
		if line.Error != nil {
			return &Error{Server: c.cfg.Server, Status: line.Error.Code, Message: line.Error.Message}
		}
		if len(line.Result) == 0 {
			continue
		}
		if err := fn(line.Result); err != nil {
			if errors.Is(err, errLast) {
				return nil
			}
			return fmt.Errorf("Argo CD API server %s: %s: %w", c.cfg.Server, what, err)
		}
	}
	if err := lines.Err(); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("Argo CD API server %s: %s broke: %w", c.cfg.Server, what, err)
	}
	return errStreamEnded
}

// errLast is fn's word that the stream's last result came.
var errLast = errors.New("the last result")
