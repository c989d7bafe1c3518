package privacy

// Export: one JSON document of everything the account holds about one
// client (docs/data-rights.md, "What the export holds"), written section by
// section as rows are read, so a client with a million messages costs one
// row of memory at a time. No secret is ever selected: channel credentials,
// webhook secrets and URLs, API keys and internal message fields stay out.

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/audit"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
)

// Export writes the document of the account's client id to w. An unknown
// client, or another account's, is NOT_FOUND and nothing is written.
func Export(ctx context.Context, q db.Querier, acct account.Account, clientID int64, w io.Writer, now time.Time) error {
	s, err := loadSubject(ctx, q, acct, clientID)
	if err != nil {
		return err
	}
	out := &doc{w: bufio.NewWriterSize(w, 64<<10)}
	out.raw("{")
	out.field("exported_at", clock.Format(now))
	out.field("client", clientSection(s))
	sections := []struct {
		name string
		fn   func(context.Context, db.Querier, account.Account, subject, *doc) error
	}{
		{"tags", exportTags}, {"appointments", exportAppointments}, {"waitlist_entries", exportEntries},
		{"pipeline_cards", exportCards}, {"conversations", exportConversations}, {"outbox", exportOutbox},
		{"consents", exportConsents}, {"audit", exportAudit},
	}
	for _, sec := range sections {
		out.key(sec.name)
		out.raw("[")
		out.first = true
		if err := sec.fn(ctx, q, acct, s, out); err != nil {
			return fmt.Errorf("export %s: %w", sec.name, err)
		}
		out.raw("]")
	}
	out.raw("\n}\n")
	if out.err != nil {
		return out.err
	}
	return out.w.Flush()
}

// RecordExport writes the audit entry of an export of the account's
// client id, by who (every door records its exports the same way).
func RecordExport(ctx context.Context, store *db.DB, acct account.Account, clientID int64, by audit.Actor, now time.Time) error {
	return store.Transact(ctx, func(tx *db.Tx) error {
		return audit.Record(ctx, tx, acct, by, "exported", "client", strconv.FormatInt(clientID, 10), "", now)
	})
}

// doc writes the document: an object whose values are encoded one at a
// time. The first write error sticks.
type doc struct {
	w     *bufio.Writer
	err   error
	first bool // no item written yet in the open array
	keyed bool // a key was written in the top object
}

func (d *doc) raw(s string) {
	if d.err == nil {
		_, d.err = d.w.WriteString(s)
	}
}

func (d *doc) key(k string) {
	if d.keyed {
		d.raw(",")
	}
	d.keyed = true
	b, _ := json.Marshal(k)
	d.raw("\n  " + string(b) + ": ")
}

func (d *doc) field(k string, v any) {
	d.key(k)
	d.value(v)
}

func (d *doc) value(v any) {
	if d.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		d.err = err
		return
	}
	_, d.err = d.w.Write(b)
}

// item writes one element of the open array.
func (d *doc) item(v any) error {
	if !d.first {
		d.raw(",")
	}
	d.first = false
	d.raw("\n    ")
	d.value(v)
	return d.err
}

// stamp is a stored time in the API's form; nil when not set.
func stamp(us sql.NullInt64) *string {
	if !us.Valid {
		return nil
	}
	s := clock.Format(db.Time(us.Int64))
	return &s
}

func at(us int64) string { return clock.Format(db.Time(us)) }

// rawJSON is stored JSON text as a value ({} when empty or not JSON).
func rawJSON(s string) json.RawMessage {
	if !json.Valid([]byte(s)) {
		return json.RawMessage("{}")
	}
	return json.RawMessage(s)
}

func clientSection(s subject) map[string]any {
	c := s.client
	var erased *string
	if s.erasedAt != nil {
		t := clock.Format(*s.erasedAt)
		erased = &t
	}
	data := c.Data
	if data == nil {
		data = map[string]any{}
	}
	return map[string]any{
		"id": c.ID, "first_name": c.FirstName, "last_name": c.LastName, "phone": c.PhoneE164(), "email": c.EmailOrNil(),
		"company": c.CompanyOrNil(), "timezone": nilIfEmpty(c.Timezone), "national_id": c.NationalID, "insurer": c.Insurer,
		"insurance_policy": c.InsurancePolicy, "lead_value": c.LeadValue, "data": data,
		"created_at": clock.Format(c.CreatedAt), "updated_at": clock.Format(c.UpdatedAt), "erased_at": erased,
	}
}

func nilIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// each runs q and calls fn on every row, closing the rows before it
// returns (SQLite's driver runs one statement at a time per connection).
func each(ctx context.Context, q db.Querier, query string, args []any, fn func(*sql.Rows) error) error {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

func exportTags(ctx context.Context, q db.Querier, acct account.Account, s subject, d *doc) error {
	return each(ctx, q, `SELECT t.name, ct.source, ct.created_at FROM client_tags ct JOIN tags t ON t.account_id = ct.account_id AND t.id = ct.tag_id
		WHERE ct.account_id = ? AND ct.client_id = ? ORDER BY t.name`, []any{acct.ID, s.client.ID}, func(r *sql.Rows) error {
		var name, source string
		var created int64
		if err := r.Scan(&name, &source, &created); err != nil {
			return err
		}
		return d.item(map[string]any{"name": name, "source": source, "added_at": at(created)})
	})
}

func exportAppointments(ctx context.Context, q db.Querier, acct account.Account, s subject, d *doc) error {
	return each(ctx, q, `SELECT a.id, s.name, p.name, a.start_at, a.end_at, a.timezone, a.status, a.source, a.confirmation_status,
		a.notes, a.custom_fields, a.series_id, a.arrived_at, a.created_at, a.updated_at
		FROM appointments a JOIN services s ON s.account_id = a.account_id AND s.id = a.service_id JOIN professionals p ON p.account_id = a.account_id AND p.id = a.professional_id
		WHERE a.account_id = ? AND a.client_id = ? ORDER BY a.start_at, a.id`, []any{acct.ID, s.client.ID}, func(r *sql.Rows) error {
		var (
			id, start, end, created, updated                 int64
			svc, pro, tz, status, source, confirm, notes, cf string
			series, arrived                                  sql.NullInt64
		)
		if err := r.Scan(&id, &svc, &pro, &start, &end, &tz, &status, &source, &confirm, &notes, &cf, &series, &arrived, &created, &updated); err != nil {
			return err
		}
		var seriesID *int64
		if series.Valid {
			seriesID = &series.Int64
		}
		return d.item(map[string]any{"id": id, "service": svc, "professional": pro, "start_at": at(start), "end_at": at(end),
			"timezone": tz, "status": status, "source": source, "confirmation_status": confirm, "notes": notes,
			"custom_fields": rawJSON(cf), "series_id": seriesID, "arrived_at": stamp(arrived), "created_at": at(created), "updated_at": at(updated)})
	})
}

func exportEntries(ctx context.Context, q db.Querier, acct account.Account, s subject, d *doc) error {
	return each(ctx, q, `SELECT e.id, w.name, s.name, e.status, e.priority, e.source, e.earliest_date, e.latest_date, e.time_preference,
		e.notes, e.resolution_reason, e.created_at, e.resolved_at
		FROM waitlist_entries e JOIN waitlists w ON w.account_id = e.account_id AND w.id = e.waitlist_id JOIN services s ON s.account_id = e.account_id AND s.id = e.service_id
		WHERE e.account_id = ? AND e.client_id = ? ORDER BY e.id`, []any{acct.ID, s.client.ID}, func(r *sql.Rows) error {
		var (
			id, created                          int64
			priority                             int
			list, svc, status, source, pref, nts string
			earliest, latest, reason             sql.NullString
			resolved                             sql.NullInt64
		)
		if err := r.Scan(&id, &list, &svc, &status, &priority, &source, &earliest, &latest, &pref, &nts, &reason, &created, &resolved); err != nil {
			return err
		}
		return d.item(map[string]any{"id": id, "waitlist": list, "service": svc, "status": status, "priority": priority, "source": source,
			"earliest_date": nullStr(earliest), "latest_date": nullStr(latest), "time_preference": pref, "notes": nts,
			"resolution_reason": nullStr(reason), "created_at": at(created), "resolved_at": stamp(resolved)})
	})
}

func nullStr(s sql.NullString) *string {
	if !s.Valid {
		return nil
	}
	return &s.String
}

func exportConsents(ctx context.Context, q db.Querier, acct account.Account, s subject, d *doc) error {
	return each(ctx, q, `SELECT ch.file_key, ch.type, cc.opted_out, cc.opted_out_at, cc.opted_in_at
		FROM channel_consents cc JOIN channels ch ON ch.id = cc.channel_id
		WHERE cc.account_id = ? AND cc.client_id = ? ORDER BY ch.file_key`, []any{acct.ID, s.client.ID}, func(r *sql.Rows) error {
		var key, typ string
		var out bool
		var outAt, inAt sql.NullInt64
		if err := r.Scan(&key, &typ, &out, &outAt, &inAt); err != nil {
			return err
		}
		return d.item(map[string]any{"channel": key, "type": typ, "opted_out": out, "opted_out_at": stamp(outAt), "opted_in_at": stamp(inAt)})
	})
}

// exportAudit writes the audit entries naming the client, or one of their
// appointments, waiting-list entries or cards.
func exportAudit(ctx context.Context, q db.Querier, acct account.Account, s subject, d *doc) error {
	named := map[string][]string{"client": {strconv.FormatInt(s.client.ID, 10)}}
	for table, kind := range map[string]string{"appointments": "appointment", "waitlist_entries": "waitlist_entry", "cards": "card"} {
		ids, err := db.QueryInt64s(ctx, q, `SELECT id FROM `+table+` WHERE account_id = ? AND client_id = ?`, acct.ID, s.client.ID)
		if err != nil {
			return err
		}
		for _, id := range ids {
			named[kind] = append(named[kind], strconv.FormatInt(id, 10))
		}
	}
	for _, kind := range []string{"client", "appointment", "waitlist_entry", "card"} {
		if len(named[kind]) == 0 {
			continue
		}
		in, args := db.In(named[kind])
		err := each(ctx, q, `SELECT id, user_name, action, object_type, object_id, summary, created_at FROM audit_log
			WHERE account_id = ? AND object_type = ? AND object_id IN `+in+` ORDER BY id`, append([]any{acct.ID, kind}, args...), func(r *sql.Rows) error {
			var id, created int64
			var by, action, typ, obj, summary string
			if err := r.Scan(&id, &by, &action, &typ, &obj, &summary, &created); err != nil {
				return err
			}
			return d.item(map[string]any{"id": id, "by": by, "action": action, "object_type": typ, "object_id": obj, "summary": summary, "at": at(created)})
		})
		if err != nil {
			return err
		}
	}
	return nil
}
