package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/httpapi"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// waitlistBatchBody builds an n-row batch of distinct contacts (phones and
// e-mails from base), cycling through services.
func waitlistBatchBody(listID int64, services []int64, base, n int) map[string]any {
	rows := make([]any, n)
	for i := range rows {
		rows[i] = map[string]any{"phone": fmt.Sprintf("+34613%06d", base+i), "first_name": "Paciente", "last_name": fmt.Sprint(base + i),
			"email": fmt.Sprintf("p%d@example.com", base+i), "service_ids": list(services[i%len(services)]), "priority": i % 4,
			"time_preference": "morning", "notes": "from the old system"}
	}
	return map[string]any{"waitlist_id": listID, "entries": rows}
}

// waitlistBenchServer provisions acme and the waiting-list fixture on engine
// e, with the wall clock.
func waitlistBenchServer(b *testing.B, e db.Engine) (*db.DB, *httpapi.Server, workspace.IDs) {
	b.Helper()
	store := dbtest.Open(b, e)
	var res *workspace.Result
	for _, f := range []string{"../workspace/testdata/acme.yaml", "testdata/waitlist.yaml"} {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		if res, err = (&workspace.Applier{DB: store, Now: time.Now}).Apply(context.Background(), data); err != nil {
			b.Fatal(err)
		}
	}
	srv := httpapi.NewServer(httpapi.Config{DB: store, Clock: clock.System{}, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	return store, srv, res.IDs
}

// BenchmarkWaitlistBatch posts 500-row batches through the HTTP handler:
// every contact new; every contact existing (entries new); and a re-send
// (every row already waiting). ms/batch-median is the median batch.
func BenchmarkWaitlistBatch(b *testing.B) {
	const path = wl + "/entries/batch"
	for _, e := range []db.Engine{db.SQLite, db.Postgres} {
		b.Run(string(e), func(b *testing.B) {
			b.Run("all_new", func(b *testing.B) {
				_, srv, ids := waitlistBenchServer(b, e)
				services := []int64{ids.Services["cleaning"], ids.Services["whitening"]}
				durations := make([]time.Duration, 0, b.N)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					data, _ := json.Marshal(waitlistBatchBody(ids.Waitlists["main"], services, i*500, 500))
					b.StartTimer()
					start := time.Now()
					post(b, srv, path, data, 200)
					durations = append(durations, time.Since(start))
				}
				b.StopTimer()
				reportMedian(b, durations)
			})
			b.Run("all_existing", func(b *testing.B) {
				store, srv, ids := waitlistBenchServer(b, e)
				services := []int64{ids.Services["cleaning"], ids.Services["whitening"]}
				data, _ := json.Marshal(waitlistBatchBody(ids.Waitlists["main"], services, 0, 500))
				post(b, srv, path, data, 200) // the clients exist from now on
				durations := make([]time.Duration, 0, b.N)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					// Resolve the open entries so each batch writes 500 new ones
					// for 500 existing clients.
					if _, err := store.Exec(context.Background(), `UPDATE waitlist_entries SET status = 'removed' WHERE status = 'waiting'`); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
					start := time.Now()
					post(b, srv, path, data, 200)
					durations = append(durations, time.Since(start))
				}
				b.StopTimer()
				reportMedian(b, durations)
			})
			b.Run("resend_already_waiting", func(b *testing.B) {
				_, srv, ids := waitlistBenchServer(b, e)
				services := []int64{ids.Services["cleaning"], ids.Services["whitening"]}
				data, _ := json.Marshal(waitlistBatchBody(ids.Waitlists["main"], services, 0, 500))
				post(b, srv, path, data, 200)
				durations := make([]time.Duration, 0, b.N)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					start := time.Now()
					post(b, srv, path, data, 200)
					durations = append(durations, time.Since(start))
				}
				b.StopTimer()
				reportMedian(b, durations)
			})
		})
	}
}

func reportMedian(b *testing.B, durations []time.Duration) {
	sort.Slice(durations, func(i, j int) bool { return durations[i] < durations[j] })
	b.ReportMetric(float64(durations[len(durations)/2].Microseconds())/1000, "ms/batch-median")
}
