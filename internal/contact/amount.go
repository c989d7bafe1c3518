package contact

import (
	"math"
	"strconv"
	"strings"
)

// ParseLeadValue reads a lead value typed by hand: a finite number of zero
// or more.
func ParseLeadValue(raw string) (float64, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0, false
	}
	return f, true
}
