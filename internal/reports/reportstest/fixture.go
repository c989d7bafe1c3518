// Package reportstest writes the reports' hand-counted fixture
// (docs/reports.md) into an account whose catalogue a test made: one week
// of a small clinic whose every number is obvious, and the numbers it must
// give. Tests of package reports and of the dashboard share it.
package reportstest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// Madrid is the fixture's zone.
var Madrid, _ = time.LoadLocation("Europe/Madrid")

// The fixture's period: Monday 2 to Sunday 8 March 2026 in Madrid.
const FirstDay, LastDay = "2026-03-02", "2026-03-08"

// At is a time of the fixture's week: day of March 2026, in Madrid.
func At(day, hour, minute int) time.Time { return time.Date(2026, 3, day, hour, minute, 0, 0, Madrid) }

// IDs are the account's rows the fixture writes against. The account's
// professionals Pro0 and Pro1 work Monday to Friday 09:00-13:00, Pro1 has
// Wednesday 4 March 09:00-13:00 off; Short has no cancel cut-off (24 h
// applies), Long a cut-off of 48 h. Client was created before the period.
// Stages are a pipeline's first three stages, in order.
type IDs struct {
	Account, Pro0, Pro1, Short, Long, EventType, Client, Waitlist int64
	Stages                                                        [3]int64
}

// Seed writes the fixture. Every time is within the period unless said.
func Seed(tb testing.TB, store *db.DB, id IDs) {
	tb.Helper()
	ctx := context.Background()
	exec := func(q string, args ...any) {
		tb.Helper()
		if _, err := store.Exec(ctx, q, args...); err != nil {
			tb.Fatalf("%s: %v", q, err)
		}
	}
	newClient := func(name string, created time.Time) int64 {
		tb.Helper()
		var cid int64
		if err := store.QueryRow(ctx, `INSERT INTO clients (account_id, first_name, created_at, updated_at) VALUES (?, ?, ?, ?) RETURNING id`,
			id.Account, name, db.Micros(created), db.Micros(created)).Scan(&cid); err != nil {
			tb.Fatal(err)
		}
		return cid
	}
	// New clients: X (first appointment from the booking page), Y (from
	// the dashboard), Z (no appointment).
	x, y := newClient("Xenia", At(2, 8, 0)), newClient("Yago", At(3, 8, 0))
	newClient("Zoe", At(4, 8, 0))
	type appt struct {
		pro, service, client int64
		start                time.Time
		minutes              int
		status, source       string
		confirmed            string // confirmation_status at insert
		created, updated     time.Time
	}
	week := At(1, 12, 0) // booked on Sunday 1 March unless said
	appts := []appt{
		// 1-7: Pro0.
		{id.Pro0, id.Short, id.Client, At(2, 9, 0), 30, "completed", "api", "pending", week, week},
		{id.Pro0, id.Short, y, At(2, 10, 0), 30, "completed", "dashboard", "pending", week, week},
		{id.Pro0, id.Short, id.Client, At(3, 9, 0), 60, "no_show", "api", "pending", week, week},
		{id.Pro0, id.Short, x, At(3, 11, 0), 60, "no_show", "booking_page", "pending", week, week},
		// Cancelled 2 hours before the start: late (24 h).
		{id.Pro0, id.Short, id.Client, At(5, 11, 0), 30, "cancelled", "api", "pending", week, At(5, 9, 0)},
		// Cancelled 4 days before the start: not late; its slot is
		// refilled from the waiting list 3 hours later (the next one).
		{id.Pro0, id.Short, id.Client, At(6, 10, 0), 30, "cancelled", "api", "pending", week, At(2, 10, 0)},
		{id.Pro0, id.Short, id.Client, At(6, 10, 0), 60, "booked", "waitlist", "confirmed", At(2, 13, 0), At(2, 13, 0)},
		// 8-10: Pro1. Cancelled 30 hours before: late under Long's 48 h.
		{id.Pro1, id.Long, id.Client, At(6, 12, 0), 60, "cancelled", "api", "pending", week, At(5, 6, 0)},
		{id.Pro1, id.Long, id.Client, At(2, 9, 0), 60, "completed", "api", "pending", week, week},
		{id.Pro1, id.Long, id.Client, At(5, 9, 0), 60, "booked", "dashboard", "pending", week, week},
		// Outside the period: counted nowhere.
		{id.Pro0, id.Short, id.Client, At(9, 9, 0), 30, "no_show", "api", "pending", week, week},
	}
	rows := make([][]any, len(appts))
	for i, a := range appts {
		rows[i] = []any{id.Account, a.client, a.service, a.pro, id.EventType, db.Micros(a.start), db.Micros(a.start.Add(time.Duration(a.minutes) * time.Minute)),
			a.status, a.source, a.confirmed, db.Micros(a.created), db.Micros(a.updated)}
	}
	if err := db.InsertMany(ctx, store, `INSERT INTO appointments (account_id, client_id, service_id, professional_id, event_type_id,
		start_at, end_at, status, source, confirmation_status, created_at, updated_at)`, rows, ""); err != nil {
		tb.Fatal(err)
	}
	// Confirmations: 2, 4 and 6 hours after booking, through the column's
	// trigger (appointments 1, 2 and 9).
	for _, c := range []struct {
		start time.Time
		pro   int64
		after time.Duration
	}{{At(2, 9, 0), id.Pro0, 2 * time.Hour}, {At(2, 10, 0), id.Pro0, 4 * time.Hour}, {At(2, 9, 0), id.Pro1, 6 * time.Hour}} {
		exec(`UPDATE appointments SET confirmation_status = 'confirmed', updated_at = ?, confirmed_at = ? WHERE account_id = ? AND professional_id = ? AND start_at = ?`,
			db.Micros(week.Add(c.after)), db.Micros(week.Add(c.after)), id.Account, c.pro, db.Micros(c.start))
	}
	// Messages: sms 5 delivered, 2 failed (invalid number), 1 suppressed
	// (opted out), 3 seat offers sent and 1 withdrawn; whatsapp 4 read, 1
	// suppressed (outside the 24-hour window); email 2 sent. One sms before
	// the period.
	var msgs [][]any
	add := func(n int, kind, channel, status, reason string, at time.Time) {
		for range n {
			var r any
			if reason != "" {
				r = reason
			}
			msgs = append(msgs, []any{id.Account, kind, channel, status, r, db.Micros(at), db.Micros(at)})
		}
	}
	add(5, "reminder", "sms", "delivered", "", At(3, 9, 0))
	add(2, "reminder", "sms", "failed", "invalid number", At(3, 9, 0))
	add(1, "confirmation", "sms", "suppressed", "opted out", At(3, 9, 0))
	add(3, "seat_offer", "sms", "sent", "", At(2, 11, 0))
	add(1, "seat_offer", "sms", "cancelled", "", At(2, 11, 0))
	add(4, "confirmation", "whatsapp", "read", "", At(4, 9, 0))
	add(1, "reminder", "whatsapp", "suppressed", "outside the 24-hour window", At(4, 9, 0))
	add(2, "automation", "email", "sent", "", At(5, 9, 0))
	add(1, "reminder", "sms", "delivered", "", At(1, 9, 0))
	if err := db.InsertMany(ctx, store, `INSERT INTO outbox (account_id, kind, channel, status, error, scheduled_at, created_at)`, msgs, ""); err != nil {
		tb.Fatal(err)
	}
	// One offer still holds its slot (until 2100).
	exec(`INSERT INTO waitlist_entries (account_id, waitlist_id, client_id, service_id, status, offered_at, seat_expires_at, created_at, updated_at)
		VALUES (?, ?, ?, ?, 'queued', ?, ?, ?, ?)`, id.Account, id.Waitlist, x, id.Short, db.Micros(At(2, 11, 0)),
		db.Micros(time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)), db.Micros(week), db.Micros(week))
	// Pipeline: four cards placed in the first stage; two move on after 1
	// and 3 hours; one of those reaches the third stage 10 hours later.
	for i, moves := range [][]time.Duration{{time.Hour, 10 * time.Hour}, {3 * time.Hour}, nil, nil} {
		placed := At(3, 9, i)
		var card int64
		if err := store.QueryRow(ctx, `INSERT INTO cards (account_id, pipeline_id, client_id, stage_id, added_at, stage_entered_at, updated_at)
			SELECT ?, pipeline_id, ?, id, ?, ?, ? FROM stages WHERE id = ? RETURNING id`, id.Account, newClientFor(tb, store, id, i), db.Micros(placed), db.Micros(placed), db.Micros(placed), id.Stages[0]).Scan(&card); err != nil {
			tb.Fatal(err)
		}
		exec(`INSERT INTO card_events (account_id, card_id, kind, to_stage_id, source, created_at) VALUES (?, ?, 'placed', ?, 'api', ?)`, id.Account, card, id.Stages[0], db.Micros(placed))
		at := placed
		for j, d := range moves {
			at = at.Add(d)
			exec(`INSERT INTO card_events (account_id, card_id, kind, from_stage_id, to_stage_id, source, created_at) VALUES (?, ?, 'moved', ?, ?, 'api', ?)`,
				id.Account, card, id.Stages[j], id.Stages[j+1], db.Micros(at))
		}
	}
}

// newClientFor is a card's client, created before the period (so not a new
// client of it).
func newClientFor(tb testing.TB, store *db.DB, id IDs, i int) int64 {
	tb.Helper()
	var cid int64
	before := db.Micros(At(1, 0, 0).AddDate(0, -1, 0))
	if err := store.QueryRow(context.Background(), `INSERT INTO clients (account_id, first_name, created_at, updated_at) VALUES (?, ?, ?, ?) RETURNING id`,
		id.Account, fmt.Sprintf("Lead %d", i), before, before).Scan(&cid); err != nil {
		tb.Fatal(err)
	}
	return cid
}

// Clinic applies the fixture's catalogue, with users (workspace file
// users, their passwords hashed by hash), to a new account slug, seeds the
// fixture into it (Seed) and returns the account and the workspace's ids.
func Clinic(tb testing.TB, store *db.DB, slug string, users []map[string]any, hash workspace.PasswordHasher) (account.Account, IDs) {
	tb.Helper()
	hours := map[string][]string{}
	for _, d := range []string{"mon", "tue", "wed", "thu", "fri"} {
		hours[d] = []string{"09:00-13:00"}
	}
	doc := map[string]any{
		"account":     map[string]any{"slug": slug, "name": "Clinic " + slug, "timezone": "Europe/Madrid", "default_region": "ES"},
		"event_types": []any{map[string]any{"key": "visit", "name": "Visit"}},
		"clients":     []any{map[string]any{"key": "c", "first_name": "Ana", "phone": "+34600000001"}},
		"professionals": []any{
			map[string]any{"key": "p0", "name": "Ana Pro", "working_hours": hours},
			map[string]any{"key": "p1", "name": "Ben Pro", "working_hours": hours,
				"time_off": []any{map[string]any{"from": "2026-03-04T08:00:00Z", "to": "2026-03-04T12:00:00Z"}}},
		},
		"services": []any{
			map[string]any{"key": "short", "name": "Short", "default_duration_minutes": 30, "professionals": []string{"p0", "p1"}, "event_types": []string{"visit"}},
			map[string]any{"key": "long", "name": "Long", "default_duration_minutes": 60, "professionals": []string{"p1"}, "event_types": []string{"visit"},
				"booking_rules": map[string]any{"cancel_cutoff": "48h"}},
		},
		"waitlists": []any{map[string]any{"key": "main", "name": "Main", "services": []string{"short"}}},
		"pipelines": []any{map[string]any{"key": "sales", "name": "Sales", "stages": []any{
			map[string]any{"key": "new", "name": "New", "entry_point": true},
			map[string]any{"key": "contacted", "name": "Contacted"},
			map[string]any{"key": "won", "name": "Won", "stage_type": "won"},
		}}},
	}
	if users != nil {
		doc["users"] = users
	}
	data, _ := json.Marshal(doc)
	before := func() time.Time { return At(1, 0, 0).AddDate(0, -1, 0) }
	res, err := (&workspace.Applier{DB: store, Now: before, HashPassword: hash}).Apply(context.Background(), data)
	if err != nil {
		tb.Fatal(err)
	}
	acct, err := account.BySlug(context.Background(), store, slug)
	if err != nil {
		tb.Fatal(err)
	}
	ids := IDs{Account: acct.ID, Pro0: res.IDs.Professionals["p0"], Pro1: res.IDs.Professionals["p1"],
		Short: res.IDs.Services["short"], Long: res.IDs.Services["long"], EventType: res.IDs.EventTypes["visit"],
		Client: res.IDs.Clients["c"], Waitlist: res.IDs.Waitlists["main"]}
	for i, k := range []string{"new", "contacted", "won"} {
		if err := store.QueryRow(context.Background(), `SELECT id FROM stages WHERE account_id = ? AND file_key = ?`, acct.ID, k).Scan(&ids.Stages[i]); err != nil {
			tb.Fatal(err)
		}
	}
	Seed(tb, store, ids)
	return acct, ids
}
