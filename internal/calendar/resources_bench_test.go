package calendar_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// BenchmarkSlotsWithResources lists 31 days of free slots of the 30-minute
// service of a clinic with 10 professionals and 5,000 booked appointments
// in the window, without rooms and with the service needing one of 6
// rooms that the appointments hold in turn (docs/rooms.md).
func BenchmarkSlotsWithResources(b *testing.B) {
	for _, e := range []db.Engine{db.SQLite, db.Postgres} {
		for _, rooms := range []int{0, 6} {
			b.Run(fmt.Sprintf("%s/rooms=%d", e, rooms), func(b *testing.B) {
				ctx := context.Background()
				store := dbtest.Open(b, e)
				acct, res := clinic(b, store, "bench", 10)
				now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
				insertAppointments(b, store, acct, res, randomAppointments(10, 5000, now, 31))
				if rooms > 0 {
					var file strings.Builder
					file.WriteString("account: {slug: bench}\nresources:\n")
					for i := range rooms {
						fmt.Fprintf(&file, "  - {key: box%d, name: Box %d, kind: room}\n", i, i)
					}
					file.WriteString("services: [{key: s30, resources: {kind: room}}]\n")
					applied, err := (&workspace.Applier{DB: store, Now: time.Now}).Apply(ctx, []byte(file.String()))
					if err != nil {
						b.Fatal(err)
					}
					for i := range rooms {
						if _, err := store.Exec(ctx, `UPDATE appointments SET resource_id = ? WHERE account_id = ? AND id % ? = ?`,
							applied.IDs.Resources[fmt.Sprintf("box%d", i)], acct.ID, rooms, i); err != nil {
							b.Fatal(err)
						}
					}
				}
				if _, err := store.Exec(ctx, "ANALYZE appointments"); err != nil {
					b.Fatal(err)
				}
				var list calendar.SlotList
				for b.Loop() {
					var err error
					list, err = calendar.ListFreeSlots(ctx, store, acct, calendar.SlotsQuery{ServiceID: res.IDs.Services["s30"],
						Days: 31, Limit: calendar.SlotLimitMax}, now)
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(len(list.Slots)), "slots")
			})
		}
	}
}
