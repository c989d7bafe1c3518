package privacy

// Erase: the client's personal data is replaced by nothing, in one
// transaction (docs/data-rights.md, "What erasure does and keeps").

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/audit"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/jobs"
	"github.com/frontdesk/frontdesk/internal/waitlist"
)

// ErasedReason is the reason written on what erasure cancels and removes:
// the cancellations' webhooks and the waiting-list entries' resolution.
const ErasedReason = "client_erased"

// Erased is what an erasure did.
type Erased struct {
	ClientID       int64
	Cancelled      int // future appointments cancelled
	EntriesRemoved int // open waiting-list entries removed
}

// Erase erases the personal data of the account's client id, by who (the
// audit entry names the client's id and nothing else). An unknown client,
// or another account's, is NOT_FOUND; one erased already is refused.
func Erase(ctx context.Context, store *db.DB, acct account.Account, clientID int64, by audit.Actor, now time.Time) (Erased, error) {
	var out Erased
	err := store.Transact(ctx, func(tx *db.Tx) error {
		var err error
		out, err = EraseTx(ctx, tx, acct, clientID, by, now)
		return err
	})
	return out, err
}

// EraseTx is Erase in the caller's transaction.
func EraseTx(ctx context.Context, tx *db.Tx, acct account.Account, clientID int64, by audit.Actor, now time.Time) (Erased, error) {
	out := Erased{ClientID: clientID}
	// The client's keys are locked as a booking locks them (phone, e-mail,
	// id, then the row), so a booking by the same phone waits for the
	// erasure and then finds no client.
	c, err := contact.GetClient(ctx, tx, acct, clientID)
	if err != nil {
		return out, err
	}
	if err := contact.LockKeys(ctx, tx, acct, contact.Keys{Nationals: []string{c.Phone.National}, Emails: []string{c.Email}, IDs: []int64{clientID}}); err != nil {
		return out, err
	}
	locked, err := contact.LockByIDs(ctx, tx, acct, []int64{clientID})
	if err != nil {
		return out, err
	}
	if _, ok := locked[clientID]; !ok {
		return out, errs.New(errs.NotFound, "Client %v not found.", clientID)
	}
	s, err := loadSubject(ctx, tx, acct, clientID)
	if err != nil {
		return out, err
	}
	if s.erasedAt != nil {
		return out, errs.New(errs.ValidationError, "Client %v was erased already.", clientID)
	}
	// Future appointments are cancelled by the calendar's one rule, so
	// their webhooks fire and their reminders are withdrawn.
	future, err := db.QueryInt64s(ctx, tx, `SELECT id FROM appointments WHERE account_id = ? AND client_id = ? AND status = ? AND start_at > ? ORDER BY start_at, id`,
		acct.ID, clientID, calendar.StatusBooked, db.Micros(now))
	if err != nil {
		return out, err
	}
	for _, id := range future {
		if _, err := calendar.CancelAppointmentTx(ctx, tx, acct, id, calendar.Change{By: calendar.ByStaff, Reason: ErasedReason}, now); err != nil {
			return out, fmt.Errorf("cancel appointment %d: %w", id, err)
		}
	}
	out.Cancelled = len(future)
	if out.EntriesRemoved, err = waitlist.RemoveClientEntries(ctx, tx, acct, clientID, ErasedReason, now); err != nil {
		return out, err
	}
	if err := scrub(ctx, tx, acct, s, now); err != nil {
		return out, err
	}
	if err := audit.Record(ctx, tx, acct, by, "erased", "client", strconv.FormatInt(clientID, 10), "", now); err != nil {
		return out, err
	}
	return out, jobs.Emit(ctx, tx, acct, now, jobs.Event{Type: jobs.EventClientErased, SourceID: clientID, Data: map[string]any{"client_id": clientID}})
}

// scrub replaces the subject's personal data by nothing wherever it is
// held. Free texts that are not the client's own rows (message deliveries,
// job errors, stored API answers, audit summaries) are found by the phone
// and the e-mail, which name one client; a first name alone does not.
func scrub(ctx context.Context, tx *db.Tx, acct account.Account, s subject, now time.Time) error {
	id, us := s.client.ID, db.Micros(now)
	var marks []string // LIKE patterns of the client's identifiers
	for _, v := range []string{s.e164, s.national, s.email} {
		if v != "" {
			marks = append(marks, "%"+likeEscape(v)+"%")
		}
	}
	stmts := []statement{
		{"appointments", `UPDATE appointments SET notes = '', custom_fields = '{}' WHERE account_id = ? AND client_id = ?`, []any{acct.ID, id}},
		{"waitlist entries", `UPDATE waitlist_entries SET notes = '' WHERE account_id = ? AND client_id = ?`, []any{acct.ID, id}},
		{"audit summaries", `UPDATE audit_log SET summary = '' WHERE account_id = ? AND object_type = 'client' AND object_id = ?`, []any{acct.ID, strconv.FormatInt(id, 10)}},
		{"tags", `DELETE FROM client_tags WHERE account_id = ? AND client_id = ?`, []any{acct.ID, id}},
		{"consents", `DELETE FROM channel_consents WHERE account_id = ? AND client_id = ?`, []any{acct.ID, id}},
		{"manage links", `DELETE FROM manage_links WHERE account_id = ? AND appointment_id IN (SELECT id FROM appointments WHERE account_id = ? AND client_id = ?)`, []any{acct.ID, acct.ID, id}},
	}
	if s.national != "" {
		stmts = append(stmts,
			statement{"messages", `UPDATE messages SET content = '', media = NULL WHERE account_id = ? AND conversation_id IN
				(SELECT id FROM conversations WHERE account_id = ? AND (phone_national = ? OR customer_phone_number = ?))`, []any{acct.ID, acct.ID, s.national, s.e164}},
			statement{"conversations", `UPDATE conversations SET customer_phone_number = '', phone_national = NULL, summary = ''
				WHERE account_id = ? AND (phone_national = ? OR customer_phone_number = ?)`, []any{acct.ID, s.national, s.e164}},
			// Codes are kept (they count a client address's requests) without
			// the phone, and expire now.
			statement{"verification codes", `UPDATE verification_codes SET phone = '', expires_at = CASE WHEN expires_at > ? THEN ? ELSE expires_at END
				WHERE account_id = ? AND (phone = ? OR phone = ?)`, []any{us, us, acct.ID, s.e164, s.national}},
		)
	}
	for _, st := range stmts {
		if _, err := tx.Exec(ctx, st.sql, st.args...); err != nil {
			return fmt.Errorf("erase %s: %w", st.what, err)
		}
	}
	if err := scrubOutbox(ctx, tx, acct, s, marks, now); err != nil {
		return err
	}
	for _, m := range marks {
		for _, st := range []struct{ what, sql string }{
			{"job errors", `UPDATE jobs SET last_error = NULL WHERE account_id = ? AND last_error LIKE ? ESCAPE '\'`},
			{"job attempts", `UPDATE job_attempts SET error = NULL WHERE account_id = ? AND error LIKE ? ESCAPE '\'`},
			{"stored answers", `DELETE FROM idempotency_keys WHERE account_id = ? AND response_body LIKE ? ESCAPE '\'`},
			{"audit summaries", `UPDATE audit_log SET summary = '' WHERE account_id = ? AND summary LIKE ? ESCAPE '\'`},
		} {
			if _, err := tx.Exec(ctx, st.sql, acct.ID, m); err != nil {
				return fmt.Errorf("erase %s: %w", st.what, err)
			}
		}
	}
	_, err := tx.Exec(ctx, `UPDATE clients SET first_name = '', last_name = '', name_search = '', search_text = '', phone_cc = NULL,
		phone_national = NULL, email = NULL, email_norm = NULL, company = NULL, timezone = NULL, data = '{}', file_key = NULL,
		national_id = '', insurer = '', insurance_policy = '', erased_at = ?, updated_at = ? WHERE account_id = ? AND id = ?`,
		us, us, acct.ID, id)
	return err
}

// scrubOutbox empties the messages to the client: those naming them and
// those whose recipient or body holds their phone or e-mail. Those not
// sent yet are withdrawn with their jobs; a webhook call keeps its URL
// (the integrator's, not the client's).
func scrubOutbox(ctx context.Context, tx *db.Tx, acct account.Account, s subject, marks []string, now time.Time) error {
	where, args := `client_id = ?`, []any{s.client.ID}
	if s.e164 != "" {
		where += ` OR recipient = ?`
		args = append(args, s.e164)
	}
	for _, m := range marks {
		where += ` OR body LIKE ? ESCAPE '\'`
		args = append(args, m)
	}
	ids, err := db.QueryInt64s(ctx, tx, `SELECT id FROM outbox WHERE account_id = ? AND (`+where+`)`, append([]any{acct.ID}, args...)...)
	if err != nil || len(ids) == 0 {
		return err
	}
	in, inArgs := db.In(ids)
	if _, err := tx.Exec(ctx, `UPDATE jobs SET status = 'cancelled', finished_at = ? WHERE account_id = ? AND status = 'pending' AND outbox_id IN `+in,
		append([]any{db.Micros(now), acct.ID}, inArgs...)...); err != nil {
		return fmt.Errorf("erase outbox jobs: %w", err)
	}
	if _, err := tx.Exec(ctx, `UPDATE outbox SET status = CASE WHEN status = 'pending' THEN 'cancelled' ELSE status END, body = '',
		recipient = CASE WHEN kind = ? THEN recipient ELSE '' END, error = NULL WHERE account_id = ? AND id IN `+in,
		append([]any{jobs.MsgWebhook, acct.ID}, inArgs...)...); err != nil {
		return fmt.Errorf("erase outbox: %w", err)
	}
	return nil
}

// statement is one write of the erasure.
type statement struct {
	what string
	sql  string
	args []any
}

// likeEscape escapes LIKE's wildcards in v (the escape character is \).
func likeEscape(v string) string {
	out := make([]rune, 0, len(v))
	for _, r := range v {
		if r == '%' || r == '_' || r == '\\' {
			out = append(out, '\\')
		}
		out = append(out, r)
	}
	return string(out)
}
