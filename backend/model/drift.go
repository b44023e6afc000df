package model

import (
	"fmt"
	"strings"
	"time"
)

// DriftMark is the verdict of a Stack's last drift check (pulumi refresh
// --preview-only), kept while the Stack has not applied since.
type DriftMark struct {
	Checked time.Time
	// Applied is the revision the Stack had applied when it was checked.
	Applied string
	// Resources are the drifted resources, "<op> <type> <name>", in the
	// order the refresh read them; none when nothing drifted.
	Resources []string
}

// String is one line: "2 resources drifted (checked 14:02:07): update pulumi:pulumi:StackReference network, ...".
func (d DriftMark) String() string {
	when := d.Checked.Local().Format("15:04:05")
	if len(d.Resources) == 0 {
		return fmt.Sprintf("no drift (checked %s)", when)
	}
	return fmt.Sprintf("%d resource(s) drifted (checked %s): %s", len(d.Resources), when, strings.Join(d.Resources, ", "))
}

// Same reports whether two marks say the same.
func (d *DriftMark) Same(o *DriftMark) bool {
	if d == nil || o == nil {
		return d == o
	}
	return d.Checked.Equal(o.Checked) && d.Applied == o.Applied && strings.Join(d.Resources, "\n") == strings.Join(o.Resources, "\n")
}
