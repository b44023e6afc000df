package pulumistate

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// deployment is the part of a checkpoint's latest deployment
// (apitype.DeploymentV3) driftdeck reads.
type deployment struct {
	Resources         []json.RawMessage `json:"resources"`
	PendingOperations []operation       `json:"pending_operations"`
}

// readCheckpoint decodes a stack file as the DIY backend writes it
// (a versioned checkpoint, plain, gzip or zstd).
func readCheckpoint(stored []byte) (*deployment, error) {
	plain, err := decompress(stored)
	if err != nil {
		return nil, err
	}
	var vc versionedCheckpoint
	if err := json.Unmarshal(plain, &vc); err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	if vc.Version < 1 || vc.Version > deploymentSchemaVersionLatest {
		return nil, fmt.Errorf("checkpoint version %d is not one driftdeck reads", vc.Version)
	}
	var chk struct {
		Latest *deployment `json:"latest"`
	}
	if err := json.Unmarshal(vc.Checkpoint, &chk); err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	if chk.Latest == nil {
		return &deployment{}, nil
	}
	return chk.Latest, nil
}

func pendingOps(d *deployment) []PendingOperation {
	out := make([]PendingOperation, 0, len(d.PendingOperations))
	for _, op := range d.PendingOperations {
		out = append(out, PendingOperation{Type: op.Type, URN: op.Resource.URN})
	}
	return out
}

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

func decompress(b []byte) ([]byte, error) {
	switch {
	case bytes.HasPrefix(b, gzipMagic):
		r, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		return io.ReadAll(r)
	case bytes.HasPrefix(b, zstdMagic):
		d, err := zstd.NewReader(nil)
		if err != nil {
			return nil, err
		}
		defer d.Close()
		return d.DecodeAll(b, nil)
	}
	return b, nil
}

// recompress encodes plain the way stored was encoded.
func recompress(stored, plain []byte) ([]byte, error) {
	switch {
	case bytes.HasPrefix(stored, gzipMagic):
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		if _, err := w.Write(plain); err != nil {
			return nil, err
		}
		err := w.Close()
		return buf.Bytes(), err
	case bytes.HasPrefix(stored, zstdMagic):
		e, err := zstd.NewWriter(nil)
		if err != nil {
			return nil, err
		}
		defer e.Close()
		return e.EncodeAll(plain, nil), nil
	}
	return plain, nil
}

// withoutMember returns doc without the object member at path (nested
// object keys), every other byte unchanged. found is false when there is
// no such member.
func withoutMember(doc []byte, path ...string) (out []byte, found bool, err error) {
	start, end, found, err := memberSpan(doc, path)
	if err != nil || !found {
		return doc, found, err
	}
	out = make([]byte, 0, len(doc)-(end-start))
	out = append(out, doc[:start]...)
	return append(out, doc[end:]...), true, nil
}

// memberSpan finds the bytes to cut for the member at path of the object
// doc: its key, value and one separating comma.
func memberSpan(doc []byte, path []string) (start, end int, found bool, err error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return 0, 0, false, err
	}
	first := true
	for dec.More() {
		before := int(dec.InputOffset()) // just after '{' or the previous value
		tok, err := dec.Token()
		if err != nil {
			return 0, 0, false, err
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return 0, 0, false, err
		}
		after := int(dec.InputOffset())
		if key, _ := tok.(string); key == path[0] {
			if len(path) > 1 {
				valueStart := after - len(value)
				s, e, ok, err := memberSpan(value, path[1:])
				return valueStart + s, valueStart + e, ok, err
			}
			if !first {
				return before, after, true, nil // ,"key":value
			}
			// The first member: cut the comma after it instead.
			rest := strings.TrimLeft(string(doc[after:]), " \t\r\n")
			if strings.HasPrefix(rest, ",") {
				after = len(doc) - len(rest) + 1
			}
			return before, after, true, nil
		}
		first = false
	}
	return 0, 0, false, nil
}
