package pulumiop

import "sort"

func sortNewestFirst(us []Update) {
	sort.Slice(us, func(i, j int) bool {
		if !us[i].Created.Equal(us[j].Created) {
			return us[i].Created.After(us[j].Created)
		}
		return us[i].Name > us[j].Name
	})
}
