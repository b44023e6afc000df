package store

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
)

// derivedFields are the Unit fields classifiers and model.Derive may write:
// the ones derivedAsIs compares. adapterFields are the rest, which only the
// adapters set.
var (
	derivedFields = []string{"Observed", "Run", "RunSince", "RunReason", "StuckRule", "Queued", "Persisting",
		"Window", "WindowAllowsManual", "SourceState", "Request", "Drift", "Sync", "SyncNative"}
	adapterFields = []string{"Key", "Kind", "APIVersion", "UID", "ResourceVersion", "Generation", "Created", "Desired", "Applied",
		"Health", "HealthNative", "Automation", "AutomationNative", "Pause", "Owner", "Project", "Parents", "Children",
		"LastChange", "ReadErrors", "Argo", "AppSet", "Stack", "Flux", "Tofu", "Root", "Labels", "Remediations"}
)

// A field added to Unit must be named in one of the lists: a field
// derivation writes but derivedAsIs does not compare would be lost from
// the shown unit.
func TestEveryUnitFieldIsEitherDerivedOrTheAdapters(t *testing.T) {
	ut := reflect.TypeFor[model.Unit]()
	for i := range ut.NumField() {
		name := ut.Field(i).Name
		if slices.Contains(derivedFields, name) == slices.Contains(adapterFields, name) {
			t.Errorf("Unit.%s: name it in exactly one of derivedFields and adapterFields", name)
		}
	}
}

// derivedAsIs tells a change in any one derived field.
func TestDerivedAsIsNoticesEachDerivedField(t *testing.T) {
	base := unit("a", "ns", "app", model.Running, time.Unix(100, 0))
	if !derivedAsIs(base, new(*base)) {
		t.Fatal("an unchanged copy is not as is")
	}
	for _, name := range derivedFields {
		d := *base
		f := reflect.ValueOf(&d).Elem().FieldByName(name)
		switch f.Kind() {
		case reflect.String:
			f.SetString("changed")
		case reflect.Bool:
			f.SetBool(!f.Bool())
		case reflect.Int, reflect.Int64:
			f.SetInt(f.Int() + 1)
		case reflect.Uint8: // the state enums
			f.SetUint(f.Uint() + 1)
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
		case reflect.Struct: // time.Time
			f.Set(reflect.ValueOf(time.Unix(200, 0)))
		default:
			t.Fatalf("%s: no way to change a %s here", name, f.Kind())
		}
		if derivedAsIs(base, &d) {
			t.Errorf("a change in %s is taken as no change", name)
		}
	}
}

// A unit derivation leaves as it was is shown as the adapter's struct (one
// copy a unit, not two); one a classifier changes gets a copy, and when the
// classifier's verdict goes away the unit is shown as the adapter made it.
func TestUnitLeftAsIsIsShownWithoutACopy(t *testing.T) {
	s := New(model.DefaultThresholds)
	c := &switchableClassifier{}
	s.AddClassifier(c)
	idle := unit("a", "ns", "idle", model.Idle, time.Time{})
	s.Put(idle)
	k := idle.Key
	if got, _ := s.Get(k); got != idle {
		t.Fatal("an idle unit no classifier touched is shown as a copy")
	}
	s.Flush()
	c.block = true
	s.Reclassify(func(*model.Unit) bool { return true })
	got, _ := s.Get(k)
	if got == idle || got.Run != model.BlockedByWindow || idle.Run != model.Idle {
		t.Fatalf("blocked: shown %p run %v, the adapter's %p run %v", got, got.Run, idle, idle.Run)
	}
	if b, ok := s.Flush(); !ok || !b.Changed[k] {
		t.Fatal("the classifier's verdict was not sent as a change")
	}
	c.block = false
	s.Reclassify(func(*model.Unit) bool { return true })
	if got, _ := s.Get(k); got != idle {
		t.Fatalf("unblocked: shown %p run %v, want the adapter's struct", got, got.Run)
	}
	if b, ok := s.Flush(); !ok || !b.Changed[k] {
		t.Fatal("the verdict going away was not sent as a change")
	}
}

type switchableClassifier struct{ block bool }

func (c *switchableClassifier) Classify(u *model.Unit, _ time.Time) bool {
	if c.block {
		u.Observed, u.Run, u.Window = model.BlockedByWindow, model.BlockedByWindow, "deny all day"
	}
	return false
}
