// Helpers shared by the API's external tests: request bodies, readers of
// 422 answers and a loose comparison. The harness and its response type are
// in harness_test.go.

package httpapi_test

import (
	"fmt"
	"strings"
	"testing"
)

// list builds a JSON array of ids.
func list(ids ...int64) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}

// has422 reports whether a 422 body holds an item of type typ at loc.
func has422(res response, typ string, loc ...any) bool {
	for _, it := range res.list("detail") {
		m := it.(map[string]any)
		if m["type"] != typ {
			continue
		}
		got := m["loc"].([]any)
		if len(got) != len(loc) {
			continue
		}
		same := true
		for i := range loc {
			if fmt.Sprint(got[i]) != fmt.Sprint(loc[i]) {
				same = false
			}
		}
		if same {
			return true
		}
	}
	return false
}

func client(first, last, phone string) map[string]any {
	c := map[string]any{"phone": phone}
	if first != "" {
		c["first_name"] = first
	}
	if last != "" {
		c["last_name"] = last
	}
	return c
}

func ids(v []int64) []any {
	out := make([]any, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

func same(a, b any) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

// problems returns the 422 items as "loc type" strings.
func problems(t *testing.T, res response) []string {
	t.Helper()
	var out []string
	for _, p := range res.list("detail") {
		m := p.(map[string]any)
		var loc []string
		for _, l := range m["loc"].([]any) {
			loc = append(loc, fmt.Sprint(l))
		}
		out = append(out, strings.Join(loc, ".")+" "+m["type"].(string))
	}
	return out
}
