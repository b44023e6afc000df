package cli

import (
	"encoding/json"
	"io"

	"github.com/driftdeck/driftdeck/backend/safetext"
)

// writeJSON writes v as indented JSON with no control character a terminal
// would obey (safetext.JSON): -o json is read on terminals too.
func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(safetext.JSON(b), '\n'))
	return err
}
