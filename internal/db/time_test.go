package db_test

import (
	"encoding/json"
	"testing"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
)

// TestTimeEncodesAsResponsesWriteIt: areas hand stored instants (db.Time)
// to the doors as time.Time, and JSON must write them exactly as every
// response writes an instant (clock.Format): UTC, at most microseconds,
// trailing zeros dropped, ending in Z.
func TestTimeEncodesAsResponsesWriteIt(t *testing.T) {
	for _, us := range []int64{
		0, 1, 10, 123456, 1_000_000, 1_790_000_000_000_000, 1_790_000_000_123_000, 1_790_000_000_100_001,
		-62135596800000000, // 0001-01-01T00:00:00Z
		253402300799999999, // 9999-12-31T23:59:59.999999Z
		-1_000_000, -123,
	} {
		tm := db.Time(us)
		got, err := json.Marshal(tm)
		if err != nil {
			t.Fatalf("%d: %v", us, err)
		}
		if want, _ := json.Marshal(clock.Format(tm)); string(got) != string(want) {
			t.Errorf("%d: JSON %s, responses write %s", us, got, want)
		}
	}
}
