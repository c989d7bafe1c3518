package calendar

// Booking rules in the calendar (docs/booking-rules.md): their values live
// in package bookingrules (re-exported here); this file reads an account's
// rules for the slot engine and for booking.

import (
	"context"
	"fmt"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar/bookingrules"
	"github.com/frontdesk/frontdesk/internal/db"
)

// Rules are the booking rules in force for one service (bookingrules.Rules).
type Rules = bookingrules.Rules

// RuleSet is the rules one level sets (bookingrules.RuleSet).
type RuleSet = bookingrules.RuleSet

// Rule names (bookingrules).
const (
	RuleMinNotice          = bookingrules.MinNotice
	RuleMaxAdvance         = bookingrules.MaxAdvance
	RuleCancelCutoff       = bookingrules.CancelCutoff
	RuleBufferBefore       = bookingrules.BufferBefore
	RuleBufferAfter        = bookingrules.BufferAfter
	RuleMaxFuturePerClient = bookingrules.MaxFuturePerClient
	RuleAllowSeries        = bookingrules.AllowSeries
	RuleBuffer             = bookingrules.Buffer
)

// ParseRuleDuration reads a rule's duration: "30m", "2h", "60d" (a d is 24
// hours), in whole minutes, from 0 to 3650d.
func ParseRuleDuration(s string) (time.Duration, error) { return bookingrules.ParseDuration(s) }

// ruleBook is an account's rules and its services' overrides, read in one
// query: what the slot engine needs to lay every service's slots and to
// widen every appointment by its service's buffers.
type ruleBook struct {
	account  Rules
	services map[int64]Rules // only services that set rules
	// maxBuffer is the widest buffer of any service, in microseconds: how
	// far outside a window an appointment can still take time inside it.
	maxBuffer int64
}

// loadRuleBook reads the account's rules and every service's that sets
// some (active or not: an inactive service's appointments keep their
// buffers).
func loadRuleBook(ctx context.Context, q db.Querier, acct account.Account) (*ruleBook, error) {
	rows, err := q.Query(ctx, `SELECT 0, booking_rules FROM accounts WHERE id = ?
		UNION ALL SELECT id, booking_rules FROM services WHERE account_id = ? AND booking_rules <> '{}'
		ORDER BY 1`, acct.ID, acct.ID)
	if err != nil {
		return nil, fmt.Errorf("load booking rules: %w", err)
	}
	defer rows.Close()
	b := &ruleBook{services: map[int64]Rules{}}
	for rows.Next() {
		var (
			id  int64
			doc string
		)
		if err := rows.Scan(&id, &doc); err != nil {
			return nil, err
		}
		if id == 0 {
			b.account = bookingrules.Parse(doc).Over(Rules{})
			continue
		}
		b.services[id] = bookingrules.Parse(doc).Over(b.account)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	widest := max(b.account.BufferBefore, b.account.BufferAfter)
	for _, r := range b.services {
		widest = max(widest, r.BufferBefore, r.BufferAfter)
	}
	b.maxBuffer = int64(widest) * int64(time.Minute/time.Microsecond)
	return b, nil
}

// of returns the rules in force for a service.
func (b *ruleBook) of(serviceID int64) Rules {
	if r, ok := b.services[serviceID]; ok {
		return r
	}
	return b.account
}

// EffectiveRules returns the rules in force for a service of the account:
// the account's, overridden field by field by the service's. An unknown
// service has the account's.
func EffectiveRules(ctx context.Context, q db.Querier, acct account.Account, serviceID int64) (Rules, error) {
	var accountDoc, serviceDoc string
	err := q.QueryRow(ctx, `SELECT a.booking_rules, COALESCE((SELECT s.booking_rules FROM services s
		WHERE s.account_id = ? AND s.id = ?), '{}') FROM accounts a WHERE a.id = ?`, acct.ID, serviceID, acct.ID).Scan(&accountDoc, &serviceDoc)
	if err != nil {
		return Rules{}, fmt.Errorf("load booking rules: %w", err)
	}
	return bookingrules.Parse(serviceDoc).Over(bookingrules.Parse(accountDoc).Over(Rules{})), nil
}

// RulesByService reads the account's rules and every service's in one
// query and returns the rules in force for a service by its id (the
// account's for a service that sets none): what a page listing several
// services shows of them.
func RulesByService(ctx context.Context, q db.Querier, acct account.Account) (func(serviceID int64) Rules, error) {
	book, err := loadRuleBook(ctx, q, acct)
	if err != nil {
		return nil, err
	}
	return book.of, nil
}
