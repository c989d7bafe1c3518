package dashboard

import "sync"

// RecordMisses makes every catalogue miss of a non-English page count
// until stop; misses reads them (the key and how many times), for the
// tests of package dashboard_test.
func RecordMisses() (misses func() map[string]int, stop func()) {
	var mu sync.Mutex
	seen := map[string]int{}
	hook := func(lang, key string) {
		mu.Lock()
		seen[lang+": "+key]++
		mu.Unlock()
	}
	missHook.Store(&hook)
	return func() map[string]int {
			mu.Lock()
			defer mu.Unlock()
			out := make(map[string]int, len(seen))
			for k, v := range seen {
				out[k] = v
			}
			clear(seen)
			return out
		}, func() {
			missHook.Store(nil)
		}
}
