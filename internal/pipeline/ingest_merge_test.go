package pipeline

import (
	"encoding/json"
	"testing"
)

// A custom field changes only when its encoding does: a stored number
// (float64) equals the same number sent (json.Number), a string never
// equals a number.
func TestSameJSON(t *testing.T) {
	for _, tc := range []struct {
		a, b any
		same bool
	}{
		{"bench", "bench", true},
		{"bench", "Bench", false},
		{5.0, json.Number("5"), true},
		{"5", json.Number("5"), false},
		{true, true, true},
		{nil, false, false},
		{map[string]any{"a": 1.0}, map[string]any{"a": json.Number("1")}, true},
		{[]any{"x"}, []any{"y"}, false},
	} {
		if got := sameJSON(tc.a, tc.b); got != tc.same {
			t.Errorf("sameJSON(%#v, %#v) = %v", tc.a, tc.b, got)
		}
	}
}
