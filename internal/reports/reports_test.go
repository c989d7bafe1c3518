package reports_test

import (
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/reports"
	"github.com/frontdesk/frontdesk/internal/reports/reportstest"
)

func clinic(tb testing.TB, store *db.DB, slug string) account.Account {
	tb.Helper()
	acct, _ := reportstest.Clinic(tb, store, slug, nil, nil)
	return acct
}

func week(tb testing.TB) reports.Filter {
	p, err := reports.ParsePeriod("", reportstest.FirstDay, reportstest.LastDay, reportstest.Madrid, time.Now())
	if err != nil {
		tb.Fatal(err)
	}
	return reports.Filter{From: p.From, To: p.To}
}

func TestReportNumbers(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		acct := clinic(t, store, "a")
		clinic(t, store, "b") // the same week in another account: never counted in a's
		now := reportstest.At(20, 9, 0)
		r, err := reports.Build(t.Context(), store, acct, week(t), reports.ScopeFor("owner", 0), now)
		if err != nil {
			t.Fatal(err)
		}
		a := r.Appointments
		// 10 appointments in the week: 2 no-shows, 2 late cancels (one
		// under Short's 24 h, one under Long's 48 h; a third cancelled 4
		// days ahead is not late), 4 confirmed.
		intEq(t, "total", a.Total, 10)
		countsEq(t, "by status", a.ByStatus, map[string]int{"completed": 3, "cancelled": 3, "no_show": 2, "booked": 2})
		countsEq(t, "by source", a.BySource, map[string]int{"api": 6, "dashboard": 2, "booking_page": 1, "waitlist": 1})
		floatEq(t, "no-show rate", a.NoShowRate(), 20)            // 2/10
		floatEq(t, "late-cancel rate", a.LateCancelRate(), 20)    // 2/10
		floatEq(t, "confirmation rate", a.ConfirmationRate(), 40) // 4/10
		// Confirmed 2, 4 and 6 hours after booking (the waiting-list seat
		// was booked confirmed: no time).
		intEq(t, "timed", a.Timed, 3)
		durEq(t, "median to confirm", a.MedianToConfirm, 4*time.Hour)
		// Pro0: 30+30+60+60+60 = 240 of 5×240 = 1200 minutes (20%); Pro1:
		// 60+60 = 120 of 4×240 = 960 (a day off): 12.5%.
		if len(a.Utilisation) != 2 {
			t.Fatalf("utilisation: %+v", a.Utilisation)
		}
		for i, want := range []reports.Utilisation{{Name: "Ana Pro", BookedMinutes: 240, WorkingMinutes: 1200}, {Name: "Ben Pro", BookedMinutes: 120, WorkingMinutes: 960}} {
			got := a.Utilisation[i]
			if got.Name != want.Name || got.BookedMinutes != want.BookedMinutes || got.WorkingMinutes != want.WorkingMinutes {
				t.Errorf("utilisation %d: got %+v, want %+v", i, got, want)
			}
		}
		floatEq(t, "utilisation Pro0", a.Utilisation[0].Percent(), 20)
		floatEq(t, "utilisation Pro1", a.Utilisation[1].Percent(), 12.5)
		intEq(t, "booked total", int(a.UtilisationTotal.BookedMinutes), 360)
		intEq(t, "working total", int(a.UtilisationTotal.WorkingMinutes), 2160)

		m := r.Messages
		intEq(t, "messages", m.Total, 19)
		byChannel := map[string]map[string]int{}
		for _, c := range m.Channels {
			byChannel[c.Channel] = c.ByStatus
		}
		for ch, want := range map[string]map[string]int{
			"sms":      {"delivered": 5, "failed": 2, "suppressed": 1, "sent": 3, "cancelled": 1},
			"whatsapp": {"read": 4, "suppressed": 1},
			"email":    {"sent": 2},
		} {
			countsEq(t, ch, toCounts(byChannel[ch]), want)
		}
		if len(byChannel) != 3 {
			t.Errorf("channels: %v", byChannel)
		}
		wantReasons := []reports.Reason{{"sms", "failed", "invalid number", 2}, {"sms", "suppressed", "opted out", 1}, {"whatsapp", "suppressed", "outside the 24-hour window", 1}}
		if len(m.Reasons) != len(wantReasons) {
			t.Fatalf("reasons: %+v", m.Reasons)
		}
		for i := range wantReasons {
			if m.Reasons[i] != wantReasons[i] {
				t.Errorf("reason %d: got %+v, want %+v", i, m.Reasons[i], wantReasons[i])
			}
		}

		// 3 offers sent (a fourth withdrawn), 1 accepted, 1 still held: 1
		// not taken. The seat refilled a slot freed 3 hours before.
		w := r.Waitlist
		intEq(t, "offers sent", w.Sent, 3)
		intEq(t, "accepted", w.Accepted, 1)
		intEq(t, "held", w.Held, 1)
		intEq(t, "not taken", w.NotTaken, 1)
		intEq(t, "filled", w.Filled, 1)
		durEq(t, "median to fill", w.MedianToFill, 3*time.Hour)

		// 4 cards placed in New; 2 reach Contacted (after 1 h and 3 h), 1
		// reaches Won (10 h later): 100%, 50%, 25%.
		if len(r.Pipelines) != 1 || len(r.Pipelines[0].Stages) != 3 {
			t.Fatalf("pipelines: %+v", r.Pipelines)
		}
		f := r.Pipelines[0]
		intEq(t, "entered", f.Entered, 4)
		for i, want := range []struct {
			entries int
			conv    float64
			left    int
			median  time.Duration
		}{{4, 100, 2, 2 * time.Hour}, {2, 50, 1, 10 * time.Hour}, {1, 25, 0, 0}} {
			s := f.Stages[i]
			intEq(t, s.Name+" entries", s.Entries, want.entries)
			floatEq(t, s.Name+" conversion", s.Conversion(f), want.conv)
			intEq(t, s.Name+" left", s.Left, want.left)
			durEq(t, s.Name+" time", s.MedianTime, want.median)
		}

		// Xenia's first appointment came from the booking page, Yago's
		// from the dashboard; Zoe has none.
		intEq(t, "new clients", r.NewClients.Total, 3)
		countsEq(t, "new clients by source", r.NewClients.BySource, map[string]int{"booking_page": 1, "dashboard": 1, "none": 1})
	})
}

func TestReportFilters(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		acct := clinic(t, store, "a")
		now := reportstest.At(20, 9, 0)
		var pro1, long int64
		if err := store.QueryRow(t.Context(), `SELECT id FROM professionals WHERE account_id = ? AND file_key = 'p1'`, acct.ID).Scan(&pro1); err != nil {
			t.Fatal(err)
		}
		if err := store.QueryRow(t.Context(), `SELECT id FROM services WHERE account_id = ? AND file_key = 'long'`, acct.ID).Scan(&long); err != nil {
			t.Fatal(err)
		}
		for _, test := range []struct {
			name                          string
			pro, service                  int64
			total, late, confirmed, utils int
		}{
			// Pro1: appointments 8-10, one late cancel, one confirmed.
			{"professional", pro1, 0, 3, 1, 1, 1},
			// Long is only Pro1's.
			{"service", 0, long, 3, 1, 1, 2},
		} {
			t.Run(test.name, func(t *testing.T) {
				f := week(t)
				f.ProfessionalID, f.ServiceID = test.pro, test.service
				a, err := reports.ReadAppointments(t.Context(), store, acct, f, reports.ScopeFor("owner", 0))
				if err != nil {
					t.Fatal(err)
				}
				intEq(t, "total", a.Total, test.total)
				intEq(t, "late", a.LateCancels, test.late)
				intEq(t, "confirmed", a.Confirmed, test.confirmed)
				intEq(t, "utilisation rows", len(a.Utilisation), test.utils)
			})
		}
		// Staff: the clinic's totals, no professional's numbers.
		f := week(t)
		r, err := reports.Build(t.Context(), store, acct, f, reports.ScopeFor("staff", 0), now)
		if err != nil {
			t.Fatal(err)
		}
		intEq(t, "staff total", r.Appointments.Total, 10)
		intEq(t, "staff utilisation rows", len(r.Appointments.Utilisation), 0)
		intEq(t, "staff booked total", int(r.Appointments.UtilisationTotal.BookedMinutes), 360)
		f.ProfessionalID = pro1
		if _, err := reports.Build(t.Context(), store, acct, f, reports.ScopeFor("staff", 0), now); err == nil {
			t.Error("staff filtered by a professional")
		}
		// A staff user who is Pro1: Pro1's numbers, whatever the filter
		// asks; another professional's are refused.
		var pro0 int64
		store.QueryRow(t.Context(), `SELECT id FROM professionals WHERE account_id = ? AND file_key = 'p0'`, acct.ID).Scan(&pro0)
		own := reports.ScopeFor("staff", pro1)
		r, err = reports.Build(t.Context(), store, acct, week(t), own, now)
		if err != nil {
			t.Fatal(err)
		}
		intEq(t, "own total", r.Appointments.Total, 3)
		intEq(t, "own late", r.Appointments.LateCancels, 1)
		intEq(t, "own utilisation rows", len(r.Appointments.Utilisation), 1)
		f.ProfessionalID = pro0
		if _, err := reports.Build(t.Context(), store, acct, f, own, now); err == nil {
			t.Error("a staff professional saw another professional's numbers")
		}
	})
}

func TestParsePeriod(t *testing.T) {
	now := time.Date(2026, 3, 15, 10, 0, 0, 0, time.UTC)
	for _, test := range []struct {
		preset, first, last string
		want                [2]string
		fails               bool
	}{
		{"", "", "", [2]string{"2026-02-01", "2026-02-28"}, false},
		{"last_month", "", "", [2]string{"2026-02-01", "2026-02-28"}, false},
		{"this_month", "", "", [2]string{"2026-03-01", "2026-03-31"}, false},
		{"last_30_days", "", "", [2]string{"2026-02-14", "2026-03-15"}, false},
		{"", "2026-03-02", "2026-03-08", [2]string{"2026-03-02", "2026-03-08"}, false},
		{"", "2026-03-08", "2026-03-02", [2]string{}, true},
		{"", "2026-3-8", "2026-03-09", [2]string{}, true},
		{"", "2024-01-01", "2026-01-01", [2]string{}, true},
		{"next_year", "", "", [2]string{}, true},
	} {
		p, err := reports.ParsePeriod(test.preset, test.first, test.last, reportstest.Madrid, now)
		if (err != nil) != test.fails {
			t.Errorf("%q %q %q: err %v", test.preset, test.first, test.last, err)
			continue
		}
		if err == nil && (p.FirstDay != test.want[0] || p.LastDay != test.want[1]) {
			t.Errorf("%q %q %q: got %s..%s, want %v", test.preset, test.first, test.last, p.FirstDay, p.LastDay, test.want)
		}
	}
	// A month in Madrid starts at its midnight, not UTC's.
	p, _ := reports.ParsePeriod("this_month", "", "", reportstest.Madrid, now)
	if !p.From.Equal(time.Date(2026, 2, 28, 23, 0, 0, 0, time.UTC)) {
		t.Errorf("from %v", p.From)
	}
}

func toCounts(m map[string]int) []reports.Count {
	var out []reports.Count
	for k, n := range m {
		out = append(out, reports.Count{Key: k, N: n})
	}
	return out
}

func countsEq(t *testing.T, what string, got []reports.Count, want map[string]int) {
	t.Helper()
	m := map[string]int{}
	for _, c := range got {
		m[c.Key] += c.N
	}
	if len(m) != len(want) {
		t.Errorf("%s: got %v, want %v", what, m, want)
		return
	}
	for k, n := range want {
		if m[k] != n {
			t.Errorf("%s: got %v, want %v", what, m, want)
			return
		}
	}
}

func intEq(t *testing.T, what string, got, want int) {
	t.Helper()
	if got != want {
		t.Errorf("%s: got %d, want %d", what, got, want)
	}
}

func floatEq(t *testing.T, what string, got, want float64) {
	t.Helper()
	if got < want-1e-9 || got > want+1e-9 {
		t.Errorf("%s: got %v, want %v", what, got, want)
	}
}

func durEq(t *testing.T, what string, got, want time.Duration) {
	t.Helper()
	if got != want {
		t.Errorf("%s: got %v, want %v", what, got, want)
	}
}

// TestLateCancelsAgreeWithTheClientRecord: the reports count late cancels
// by the rule of a patient's record (docs/check-in.md); every cancellation
// of the fixture is its client Ana's, so both say 2.
func TestLateCancelsAgreeWithTheClientRecord(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		acct := clinic(t, store, "a")
		var ana int64
		if err := store.QueryRow(t.Context(), `SELECT id FROM clients WHERE account_id = ? AND file_key = 'c'`, acct.ID).Scan(&ana); err != nil {
			t.Fatal(err)
		}
		record, err := calendar.ClientAttendance(t.Context(), store, acct, ana)
		if err != nil {
			t.Fatal(err)
		}
		a, err := reports.ReadAppointments(t.Context(), store, acct, week(t), reports.ScopeFor("owner", 0))
		if err != nil {
			t.Fatal(err)
		}
		if record.LateCancels != 2 || a.LateCancels != record.LateCancels {
			t.Errorf("late cancels: record %d, report %d, want 2", record.LateCancels, a.LateCancels)
		}
	})
}
