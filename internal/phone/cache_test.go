package phone

import (
	"strconv"
	"testing"
)

// The memo must be invisible: a repeated parse gives the same answer, errors
// included, and the cache never grows past its two generations.
func TestParseCache(t *testing.T) {
	for _, raw := range []string{"+34 600 111 222", "600111222", "+386 0000001", "+1"} {
		first, err1 := ParseIngest(raw, "34")
		second, err2 := ParseIngest(raw, "34")
		if first != second || (err1 == nil) != (err2 == nil) || (err1 != nil && err1.Error() != err2.Error()) {
			t.Errorf("%q: first %v %v, then %v %v", raw, first, err1, second, err2)
		}
	}
	for i := 0; i < 2*parseCacheSize+10; i++ {
		cachedParse("+3460"+strconv.Itoa(1000000+i), "")
	}
	parses.mu.Lock()
	n := len(parses.cur) + len(parses.prev)
	parses.mu.Unlock()
	if n > 2*parseCacheSize {
		t.Errorf("cache holds %d parses, bound is %d", n, 2*parseCacheSize)
	}
}
