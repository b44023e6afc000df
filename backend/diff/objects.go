package diff

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"sync"
)

// Report is the comparison of a set of objects.
type Report struct {
	// Objects holds one diff per pair, sorted by kind, namespace, name and
	// group.
	Objects []*ObjectDiff
	// How many objects changed which way.
	Added, Removed, Modified, Unchanged int
	// Inserted and Deleted add up the lines of every object's diff.
	Inserted, Deleted int
	// Approximate is set when any object's line diff is approximate.
	Approximate bool
}

// Objects compares every pair, spreading the work over the available CPUs.
// When a pair cannot be compared, it returns the error of the first such pair.
func Objects(pairs []Pair, opts Options) (*Report, error) {
	diffs := make([]*ObjectDiff, len(pairs))
	errs := make([]error, len(pairs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(pairs)) {
		wg.Go(func() {
			for i := range next {
				diffs[i], errs[i] = Object(pairs[i], opts)
			}
		})
	}
	for i := range pairs {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("%s: %w", pairKey(pairs[i]), err)
		}
	}

	slices.SortStableFunc(diffs, func(a, b *ObjectDiff) int {
		return cmp.Or(
			cmp.Compare(a.Key.Kind, b.Key.Kind),
			cmp.Compare(a.Key.Namespace, b.Key.Namespace),
			cmp.Compare(a.Key.Name, b.Key.Name),
			cmp.Compare(a.Key.Group, b.Key.Group),
		)
	})
	return summarize(diffs), nil
}

// Only is the part of the report about one object: the selected resource of
// a resource tree. The report is not modified.
func (r *Report) Only(k ObjectKey) *Report {
	var keep []*ObjectDiff
	for _, d := range r.Objects {
		if d.Key == k {
			keep = append(keep, d)
		}
	}
	return summarize(keep)
}

// summarize counts the changes of sorted object diffs.
func summarize(diffs []*ObjectDiff) *Report {
	r := &Report{Objects: diffs}
	for _, d := range diffs {
		switch d.Change {
		case Added:
			r.Added++
		case Removed:
			r.Removed++
		case Modified:
			r.Modified++
		default:
			r.Unchanged++
		}
		r.Inserted += d.Text.Inserted
		r.Deleted += d.Text.Deleted
		r.Approximate = r.Approximate || d.Text.Approximate
	}
	return r
}
