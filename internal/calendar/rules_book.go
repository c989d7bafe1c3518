package calendar

// The booking rules at booking time (docs/booking-rules.md, "Warnings"):
// the public API, MCP and the dashboard book and warn; a door that keeps the
// rules (the patient API) sets BookRequest.KeepRules and is refused.

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// WarnBreaksBookingRule: the booking breaks one of the booking rules; the
// warning's Rule names which (RuleMinNotice, RuleMaxAdvance, RuleBuffer,
// RuleMaxFuturePerClient).
const WarnBreaksBookingRule = "breaks_booking_rule"

// RulesBroken refuses a booking made with BookRequest.KeepRules that breaks
// booking rules. It is not an errs.Error: the door that keeps the rules
// answers it with its own codes.
type RulesBroken struct {
	Rules []string // rule names, in the order min_notice, max_advance, buffer, max_future_per_client
}

func (e *RulesBroken) Error() string {
	return "the booking breaks the booking rules: " + strings.Join(e.Rules, ", ")
}

// ruleBreak is one broken rule and its warning.
type ruleBreak struct {
	rule string
	text errs.Text
}

// ruleBreaks says which of the service's booking rules booking pro for
// [start, end) for clientID breaks at now. min_notice counts only when it is
// set (a start before now is in_the_past, not a broken rule); buffer is an
// appointment of pro whose time widened by its service's buffers meets this
// one's widened time while the appointments themselves do not overlap (an
// overlap is overlaps_existing_appointment); max_future_per_client counts
// the client's future appointments not cancelled (a new client has none).
// It runs in the booking's transaction, before the insert.
func ruleBreaks(ctx context.Context, tx *db.Tx, acct account.Account, svc *service, pro *professional, clientID int64, created bool, start, end, now time.Time) ([]ruleBreak, error) {
	book, err := loadRuleBook(ctx, tx, acct)
	if err != nil {
		return nil, err
	}
	r := book.of(svc.ID)
	var out []ruleBreak
	if r.MinNotice > 0 && start.Before(now.Add(r.MinNotice)) {
		out = append(out, ruleBreak{RuleMinNotice, errs.Say("The appointment starts less than %s from now (the minimum notice for %s).",
			clock.Short(r.MinNotice), svc.Name)})
	}
	if r.MaxAdvance != nil && !start.Before(now.Add(*r.MaxAdvance)) {
		out = append(out, ruleBreak{RuleMaxAdvance, errs.Say("The appointment starts %s or more from now (the furthest %s can be booked ahead).",
			clock.Short(*r.MaxAdvance), svc.Name)})
	}
	lo, hi := db.Micros(start), db.Micros(end)
	wlo, whi := lo-int64(r.BufferBefore)*microsPerMinute, hi+int64(r.BufferAfter)*microsPerMinute
	if book.maxBuffer > 0 {
		rows, err := tx.Query(ctx, `SELECT service_id, start_at, end_at FROM appointments
			WHERE account_id = ? AND professional_id = ? AND status IN ('booked', 'arrived') AND end_at > ? AND start_at < ?`,
			acct.ID, pro.ID, wlo-book.maxBuffer, whi+book.maxBuffer)
		if err != nil {
			return nil, fmt.Errorf("load neighbouring appointments: %w", err)
		}
		collides := false
		for rows.Next() {
			var sid, s, e int64
			if err := rows.Scan(&sid, &s, &e); err != nil {
				rows.Close()
				return nil, err
			}
			other := book.of(sid)
			ws, we := s-int64(other.BufferBefore)*microsPerMinute, e+int64(other.BufferAfter)*microsPerMinute
			if ws < whi && we > wlo && (s >= hi || e <= lo) {
				collides = true
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		if collides {
			out = append(out, ruleBreak{RuleBuffer, errs.Say("The appointment does not keep the buffer time the booking rules ask between it and another appointment of %s.", pro.Name)})
		}
	}
	if limit := r.MaxFuturePerClient; limit != nil && !created && start.After(now) {
		var n int
		err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM appointments
			WHERE account_id = ? AND client_id = ? AND status <> 'cancelled' AND start_at > ?`, acct.ID, clientID, db.Micros(now)).Scan(&n)
		if err != nil {
			return nil, fmt.Errorf("count future appointments: %w", err)
		}
		if n >= *limit {
			out = append(out, ruleBreak{RuleMaxFuturePerClient, errs.Say("The client already has %d future appointments (the most one client may hold is %d).", n, *limit)})
		}
	}
	return out, nil
}

// ruleWarnings turns broken rules into the appointment's warnings.
func ruleWarnings(breaks []ruleBreak) []Warning {
	out := make([]Warning, len(breaks))
	for i, b := range breaks {
		out[i] = Warning{Code: WarnBreaksBookingRule, Rule: b.rule, Message: b.text.String(), Text: b.text}
	}
	return out
}
