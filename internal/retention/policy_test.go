package retention_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/retention"
)

func TestParsePeriod(t *testing.T) {
	for _, c := range []struct {
		in, want string // want "" : refused
	}{
		{"24mo", "24mo"}, {"1d", "1d"}, {"90d", "90d"}, {"5y", "5y"}, {" 12mo ", "12mo"},
		{"36500d", "36500d"}, {"1200mo", "1200mo"}, {"100y", "100y"},
		{"0d", ""}, {"0mo", ""}, {"36501d", ""}, {"1201mo", ""}, {"101y", ""},
		{"24", ""}, {"24m", ""}, {"2w", ""}, {"1.5y", ""}, {"-3mo", ""}, {"forever", ""}, {"", ""}, {"24MO", ""},
	} {
		p, err := retention.ParsePeriod(c.in)
		switch {
		case c.want == "" && err == nil:
			t.Errorf("%q: read as %s, want a refusal", c.in, p)
		case c.want != "" && (err != nil || p.String() != c.want):
			t.Errorf("%q: %s, %v; want %s", c.in, p, err, c.want)
		}
	}
}

func TestPeriodCutoff(t *testing.T) {
	madrid, _ := time.LoadLocation("Europe/Madrid")
	for _, c := range []struct {
		period string
		now    time.Time
		loc    *time.Location
		want   time.Time
	}{
		{"1mo", time.Date(2026, 3, 31, 10, 0, 0, 0, time.UTC), time.UTC, time.Date(2026, 2, 28, 10, 0, 0, 0, time.UTC)},
		{"1mo", time.Date(2024, 3, 31, 10, 0, 0, 0, time.UTC), time.UTC, time.Date(2024, 2, 29, 10, 0, 0, 0, time.UTC)},
		{"13mo", time.Date(2026, 1, 15, 0, 0, 0, 0, time.UTC), time.UTC, time.Date(2024, 12, 15, 0, 0, 0, 0, time.UTC)},
		{"1y", time.Date(2028, 2, 29, 8, 0, 0, 0, time.UTC), time.UTC, time.Date(2027, 2, 28, 8, 0, 0, 0, time.UTC)},
		{"7d", time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC), time.UTC, time.Date(2025, 12, 27, 0, 0, 0, 0, time.UTC)},
		// 00:30 UTC on 1 July is 02:30 in Madrid: a month earlier there is
		// 1 June, 02:30 local.
		{"1mo", time.Date(2026, 7, 1, 0, 30, 0, 0, time.UTC), madrid, time.Date(2026, 6, 1, 2, 30, 0, 0, madrid)},
		// Across the autumn change: the same wall-clock time, 25 hours back.
		{"1d", time.Date(2026, 10, 26, 12, 0, 0, 0, madrid), madrid, time.Date(2026, 10, 25, 12, 0, 0, 0, madrid)},
	} {
		p, err := retention.ParsePeriod(c.period)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Cutoff(c.now, c.loc); !got.Equal(c.want) {
			t.Errorf("%s before %s: %s, want %s", c.period, c.now, got, c.want)
		}
	}
}

func TestReadPolicy(t *testing.T) {
	p, bad := retention.Read(map[string]any{"messages": "24mo", "outbox": nil, "audit": "", "webhook_deliveries": "3mo"})
	if len(bad) != 0 || len(p) != 2 || p[retention.Messages].String() != "24mo" || p[retention.WebhookDeliveries].String() != "3mo" {
		t.Fatalf("%v %v", p, bad)
	}
	if doc := p.Document(); doc != `{"messages":"24mo","webhook_deliveries":"3mo"}` {
		t.Errorf("document %v", doc)
	}
	if doc := (retention.Policy{}).Document(); doc != nil {
		t.Errorf("empty policy stored as %v, want NULL", doc)
	}
	_, bad = retention.Read(map[string]any{"messages": 24, "chats": "1y", "audit": "1w"})
	for _, k := range []string{"messages", "chats", "audit"} {
		if bad[k] == nil {
			t.Errorf("%s: no refusal", k)
		}
	}
}

// Several workers check at once: each due account runs once, and not
// again until a day later.
func TestRunDueOncePerDay(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		f := seed(t, store, "alpha", "UTC", `{"audit":"1d"}`, nil)
		seed(t, store, "gamma", "UTC", nil, nil)
		var mu sync.Mutex
		ran := 0
		var wg sync.WaitGroup
		for i := 0; i < 4; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n, err := retention.RunDue(ctx, store, now)
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				ran += n
				mu.Unlock()
			}()
		}
		wg.Wait()
		if ran != 1 {
			t.Fatalf("ran %d times, want 1", ran)
		}
		st, err := retention.Load(ctx, store, f.acct)
		if err != nil || st.LastRun == nil || st.LastRun.Results[0].Count != 1 || !st.NextRunAt.Equal(now.Add(retention.Every)) {
			t.Fatalf("%+v %v", st, err)
		}
		for _, c := range []struct {
			at   time.Time
			want int
		}{{now.Add(retention.Every - time.Second), 0}, {now.Add(retention.Every), 1}} {
			n, err := retention.RunDue(ctx, store, c.at)
			if err != nil || n != c.want {
				t.Errorf("at %s: ran %d (%v), want %d", c.at, n, err, c.want)
			}
		}
		// The scheduler checks once per Check, whatever the polls.
		s := &retention.Scheduler{DB: store, Check: time.Minute}
		later := now.Add(3 * retention.Every)
		mustExec(t, store, `UPDATE accounts SET retention_last_run = NULL WHERE id = ?`, f.acct.ID)
		if err := s.Tick(ctx, later); err != nil {
			t.Fatal(err)
		}
		s.Wait()
		if st, _ := retention.Load(ctx, store, f.acct); st.LastRun == nil || !st.LastRun.At.Equal(later) {
			t.Fatalf("the tick did not run the due account: %+v", st.LastRun)
		}
		mustExec(t, store, `UPDATE accounts SET retention_next_run_at = NULL, retention_last_run = NULL WHERE id = ?`, f.acct.ID)
		if err := s.Tick(ctx, later.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		s.Wait()
		if st, _ := retention.Load(ctx, store, f.acct); st.LastRun != nil {
			t.Errorf("a tick within the minute ran again: %+v", st.LastRun)
		}
		if err := s.Tick(ctx, later.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		s.Wait()
		if st, _ := retention.Load(ctx, store, f.acct); st.LastRun == nil {
			t.Error("the next minute's tick did not run the due account")
		}
		// Stopped (the worker shuts down): no round starts any more.
		s.Stop()
		mustExec(t, store, `UPDATE accounts SET retention_next_run_at = NULL, retention_last_run = NULL WHERE id = ?`, f.acct.ID)
		if err := s.Tick(ctx, later.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		s.Wait()
		if st, _ := retention.Load(ctx, store, f.acct); st.LastRun != nil {
			t.Error("a stopped scheduler started a round")
		}
	})
}
