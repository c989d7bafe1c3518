package db_test

import (
	"math"
	"regexp"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
)

func TestJSONText(t *testing.T) {
	if got, err := db.JSONText(map[string]any{"booked_by": "api"}); err != nil || got != `{"booked_by":"api"}` {
		t.Errorf("JSONText = %q, %v", got, err)
	}
	// A NaN (YAML's .nan) cannot be stored as JSON: an error, not "".
	if got, err := db.JSONText(map[string]any{"x": math.NaN()}); err == nil {
		t.Errorf("JSONText(NaN) = %q, want an error", got)
	}
}

func TestNewUUID(t *testing.T) {
	v4 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for range 100 {
		u := db.NewUUID()
		if !v4.MatchString(u) || seen[u] {
			t.Fatalf("NewUUID = %q (repeated: %v)", u, seen[u])
		}
		seen[u] = true
	}
}
