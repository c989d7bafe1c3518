package reportstest

import (
	"context"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
)

// BusyFrom is the start of the busy year Busy writes: the year that ends
// with the fixture's week.
var BusyFrom = At(9, 0, 0).AddDate(-1, 0, 0)

// Busy turns the fixture's account into a busy clinic's year for the
// benchmarks: 20 professionals (18 more, with Pro0's hours), appointments
// and outbox messages spread evenly over the year from BusyFrom, written
// with INSERT ... SELECT over a generated series (a recursive CTE, the same
// SQL on both engines), and the planner's statistics refreshed.
func Busy(tb testing.TB, store *db.DB, id IDs, appointments, messages int) {
	tb.Helper()
	ctx := context.Background()
	exec := func(q string, args ...any) {
		tb.Helper()
		if _, err := store.Exec(ctx, q, args...); err != nil {
			tb.Fatalf("%.80s: %v", q, err)
		}
	}
	exec(`INSERT INTO professionals (account_id, file_key, name, working_hours, time_off)
		WITH RECURSIVE s(n) AS (SELECT 2 UNION ALL SELECT n + 1 FROM s WHERE n < 19)
		SELECT account_id, 'busy' || n, 'Professional ' || n, working_hours, '[]' FROM s, professionals WHERE id = ?`, id.Pro0)
	from := db.Micros(BusyFrom)
	step := int64(365*24*time.Hour/time.Microsecond) / int64(appointments)
	exec(`INSERT INTO appointments (account_id, client_id, service_id, professional_id, event_type_id, start_at, end_at, status, source,
			confirmation_status, confirmed_at, created_at, updated_at)
		WITH RECURSIVE s(n) AS (SELECT CAST(0 AS BIGINT) UNION ALL SELECT n + 1 FROM s WHERE n < ?),
			p(id, k) AS (SELECT id, ROW_NUMBER() OVER (ORDER BY id) - 1 FROM professionals WHERE account_id = ?)
		SELECT ?, ?, ?, p.id, ?, ? + s.n * ?, ? + s.n * ? + 1800000000,
			CASE s.n % 10 WHEN 0 THEN 'no_show' WHEN 1 THEN 'cancelled' WHEN 2 THEN 'booked' ELSE 'completed' END,
			CASE s.n % 4 WHEN 0 THEN 'api' WHEN 1 THEN 'dashboard' WHEN 2 THEN 'booking_page' ELSE 'waitlist' END,
			CASE WHEN s.n % 3 = 0 THEN 'confirmed' ELSE 'pending' END,
			CASE WHEN s.n % 3 = 0 THEN ? + s.n * ? - 200000000000 + (s.n % 97) * 60000000 END,
			? + s.n * ? - 259200000000, ? + s.n * ? - (s.n % 48) * 3600000000
		FROM s JOIN p ON p.k = s.n % 20`,
		appointments-1, id.Account, id.Account, id.Client, id.Short, id.EventType, from, step, from, step, from, step, from, step, from, step)
	mstep := int64(365*24*time.Hour/time.Microsecond) / int64(messages)
	exec(`INSERT INTO outbox (account_id, kind, channel, status, error, scheduled_at, created_at)
		WITH RECURSIVE s(n) AS (SELECT CAST(0 AS BIGINT) UNION ALL SELECT n + 1 FROM s WHERE n < ?)
		SELECT ?, CASE s.n % 5 WHEN 0 THEN 'seat_offer' ELSE 'reminder' END,
			CASE s.n % 3 WHEN 0 THEN 'sms' WHEN 1 THEN 'whatsapp' ELSE 'email' END,
			CASE s.n % 7 WHEN 0 THEN 'failed' WHEN 1 THEN 'suppressed' WHEN 2 THEN 'sent' ELSE 'delivered' END,
			CASE s.n % 7 WHEN 0 THEN 'provider error ' || (s.n % 5) WHEN 1 THEN 'opted out' END,
			? + s.n * ?, ? + s.n * ?
		FROM s`, messages-1, id.Account, from, mstep, from, mstep)
	exec(`ANALYZE`)
}
