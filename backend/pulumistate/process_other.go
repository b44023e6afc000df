//go:build !unix

package pulumistate

import "time"

// processState cannot tell on this platform.
func processState(int, time.Time) Holder { return HolderUnknown }
