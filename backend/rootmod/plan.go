package rootmod

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/tfplan"
)

// Saved is a plan saved to a file: what it changes, readable, and the
// record an apply is bound to.
type Saved struct {
	model.RootPlan
	Plan *tfplan.Plan
}

// plansDir holds r's saved plans: <id>.tfplan, the plan file tofu
// applies; <id>.json, `tofu show -json` of it; latest.json, the record of
// the newest.
func (t *Tofu) plansDir(r Root) string { return filepath.Join(t.workDir(r), "plans") }

// Plan runs `tofu plan` on r (its var files, -lock=true, the lock waited
// on for at most lockWait) and saves the plan file under its digest.
func (t *Tofu) Plan(ctx context.Context, r Root, by string, lockWait time.Duration, opts diff.Options) (*Saved, error) {
	defer t.lock(r)()
	if err := ensureSource(ctx, r, true); err != nil {
		return nil, err
	}
	dir := t.plansDir(r)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	tmp := filepath.Join(dir, fmt.Sprintf("new-%d.tfplan", time.Now().UnixNano()))
	defer os.Remove(tmp)
	args := []string{"plan", "-input=false", "-no-color", "-detailed-exitcode", "-lock=true", "-lock-timeout=" + lockWait.String(), "-out=" + tmp}
	for _, vf := range r.VarFiles {
		args = append(args, "-var-file="+vf)
	}
	if _, _, err := t.runInit(ctx, r, args...); err != nil {
		return nil, err
	}
	id, err := fileDigest(tmp)
	if err != nil {
		return nil, err
	}
	file := filepath.Join(dir, id+".tfplan")
	if err := os.Rename(tmp, file); err != nil {
		return nil, err
	}
	js, _, err := t.run(ctx, r, "show", "-json", "-no-color", file)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, id+".json"), js, 0o600); err != nil {
		return nil, err
	}
	serial, lineage, err := planState(file)
	if err != nil {
		return nil, err
	}
	p, err := tfplan.ParseJSON(js, opts)
	if err != nil {
		return nil, err
	}
	rec := model.RootPlan{ID: id, At: time.Now().UTC(), By: by, Serial: serial, Lineage: lineage, Changes: p.Changes(), Summary: p.Summary}
	if err := writeRecord(dir, rec); err != nil {
		return nil, err
	}
	p.ID = id
	return &Saved{RootPlan: rec, Plan: p}, nil
}

// fileDigest names a plan file by its content: an apply of this id
// applies exactly these bytes.
func fileDigest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:20], nil
}

// planState is the serial and lineage of the state a plan file was made
// against: a plan file is a zip holding that state snapshot.
func planState(path string) (int64, string, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return 0, "", fmt.Errorf("reading the plan file: %w", err)
	}
	defer zr.Close()
	f, err := zr.Open("tfstate")
	if errors.Is(err, os.ErrNotExist) {
		return 0, "", nil // made against no state
	}
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	var st struct {
		Serial  int64  `json:"serial"`
		Lineage string `json:"lineage"`
	}
	if err := json.NewDecoder(f).Decode(&st); err != nil {
		return 0, "", fmt.Errorf("reading the plan's prior state: %w", err)
	}
	return st.Serial, st.Lineage, nil
}

func writeRecord(dir string, rec model.RootPlan) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, "latest.json.tmp")
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, "latest.json"))
}

// LatestPlan is the record of r's newest saved plan, nil when none.
func (t *Tofu) LatestPlan(r Root) (*model.RootPlan, error) {
	b, err := os.ReadFile(filepath.Join(t.plansDir(r), "latest.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rec model.RootPlan
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("reading the last plan's record: %w", err)
	}
	return &rec, nil
}

// ErrNoSuchPlan: the plan an apply names is not saved here.
var ErrNoSuchPlan = errors.New("no saved plan has this id")

// ShowPlan reads a saved plan back, readable.
func (t *Tofu) ShowPlan(r Root, id string, opts diff.Options) (*Saved, error) {
	rec, err := t.LatestPlan(r)
	if err != nil {
		return nil, err
	}
	if rec == nil || rec.ID != id {
		return nil, fmt.Errorf("plan %s of %s: %w", id, r.Key().Ref(), ErrNoSuchPlan)
	}
	js, err := os.ReadFile(filepath.Join(t.plansDir(r), id+".json"))
	if err != nil {
		return nil, err
	}
	p, err := tfplan.ParseJSON(js, opts)
	if err != nil {
		return nil, err
	}
	p.ID = id
	return &Saved{RootPlan: *rec, Plan: p}, nil
}
