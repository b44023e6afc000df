// Package rootmod reads and runs Terraform and OpenTofu root modules that
// live outside the cluster (in a repository, run from CI or by hand): their
// state and lock as the backend keeps them, plans saved to a file, and the
// apply of exactly such a file (ADR 0043).
//
// Every read and run goes through the user's own tofu (or terraform)
// binary, with the user's environment and credentials: driftdeck links no
// part of OpenTofu. Its working data (TF_DATA_DIR: the initialised backend,
// providers) lives in driftdeck's cache, so the module's own .terraform is
// never touched; init runs with -lockfile=readonly and never -upgrade. The
// one thing tofu cannot show without taking it is the lock, so that is read
// where the backend keeps it (lock.go).
package rootmod
