package themes

import "testing"

func TestByName(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	for name, want := range map[string]string{"": "dark", "auto": "dark", "light": "light", "high-contrast": "high-contrast", "none": "no-color"} {
		th, err := ByName(name, true)
		if err != nil || th.Name != want {
			t.Errorf("%q: %v %v", name, th, err)
		}
	}
	if th, _ := ByName("auto", false); th.Name != "light" {
		t.Error("auto on a light terminal should be light")
	}
	if _, err := ByName("solarized", true); err == nil {
		t.Error("an unknown theme must be an error")
	}
	t.Setenv("NO_COLOR", "1")
	if th, _ := ByName("dark", true); th.Name != "no-color" {
		t.Error("NO_COLOR must win")
	}
}
