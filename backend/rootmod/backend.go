package rootmod

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// backendInfo is the backend init configured: its type and settings as
// the working data keeps them (-backend-config values included). Settings
// may hold credentials: they are read, never shown.
type backendInfo struct {
	Type   string
	Config map[string]any
}

// readBackend reads the backend of r's working data; a module without a
// backend block uses the local backend with its defaults.
func (t *Tofu) readBackend(r Root) (backendInfo, error) {
	b, err := os.ReadFile(filepath.Join(t.workDir(r), "data", "terraform.tfstate"))
	if errors.Is(err, os.ErrNotExist) {
		return backendInfo{Type: "local", Config: map[string]any{}}, nil
	}
	if err != nil {
		return backendInfo{}, err
	}
	var f struct {
		Backend *struct {
			Type   string         `json:"type"`
			Config map[string]any `json:"config"`
		} `json:"backend"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return backendInfo{}, fmt.Errorf("reading the backend tofu init configured: %w", err)
	}
	if f.Backend == nil {
		return backendInfo{Type: "local", Config: map[string]any{}}, nil
	}
	return backendInfo{Type: f.Backend.Type, Config: f.Backend.Config}, nil
}

// setting is a string setting of the backend, else the environment
// variable the backend falls back to, else def.
func (b backendInfo) setting(key, env, def string) string {
	if v, ok := b.Config[key].(string); ok && v != "" {
		return v
	}
	if env != "" {
		if v := os.Getenv(env); v != "" {
			return v
		}
	}
	return def
}
