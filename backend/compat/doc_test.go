// Package compat checks driftdeck's assumptions against the CRDs of the
// upstream releases in ../shared/crds (every folder there is a set) and
// checks that the project's own test CRDs (testdata/crds) behave like them:
// realistic objects round-trip, the writes driftdeck makes are kept (or, on
// older schemas, pruned exactly as known), and the same object reads back
// the same from the project's CRDs as from upstream's.
package compat
