// Package residency keeps the pages driftdeck touched only while starting
// from counting as its resident memory (ADR 0018).
package residency
