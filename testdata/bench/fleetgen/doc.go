// Package fleetgen generates a realistic GitOps fleet for benchmarks: Argo CD
// Applications shaped like the ones Argo CD v3.5 writes (about 14 KB of JSON
// each: 30 managed resources, 10 history entries, an operation state with its
// sync result, summary images) and Pulumi operator v2 Stacks with their
// auto.pulumi.com Updates, in a fixed mix of states. Object i is the same at
// every call, so runs compare.
package fleetgen

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"time"
)

// rng is a generator seeded by a name, so every object is reproducible.
func rng(name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(h.Sum64(), 0xbe9c4))
}

// commit makes a stable 40-hex commit id.
func commit(words ...any) string {
	sum := sha1.Sum([]byte(fmt.Sprint(words...)))
	return hex.EncodeToString(sum[:])
}

// UID makes a stable UUID-shaped id of words: the same object has the same
// uid in every run.
func UID(words ...any) string {
	h := commit(words...)
	return h[0:8] + "-" + h[8:12] + "-4" + h[13:16] + "-a" + h[17:20] + "-" + h[20:32]
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

var (
	teams    = []string{"payments", "checkout", "identity", "search", "catalog", "billing", "ledger", "notify", "media", "growth", "platform", "data"}
	services = []string{"api", "web", "worker", "gateway", "scheduler", "indexer", "cache", "consumer", "exporter", "admin"}
	envs     = []string{"prod", "staging", "dev", "qa"}
	clusters = []string{"prod-eu-west-1", "prod-us-east-1", "staging-eu-west-1", "dev-shared"}
)
