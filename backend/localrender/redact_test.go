package localrender

import "testing"

func TestRedactURLHidesCredentials(t *testing.T) {
	if got := RedactURL("https://user:s3cret@git.example.com/apps.git"); got != "https://user:xxxxx@git.example.com/apps.git" {
		t.Errorf("redacted to %q", got)
	}
}
