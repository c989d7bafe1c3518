package workspace_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// TestBookingRulesValidation: every value of booking_rules, on the account
// and on a service, is read by calendar's rule and refused at its path.
func TestBookingRulesValidation(t *testing.T) {
	for _, test := range []struct {
		name, file, want string
	}{
		{"a duration without a unit", `account: {slug: acme, booking_rules: {min_notice: 2}}`,
			`account.booking_rules.min_notice: 2 is not a duration like 30m, 2h or 60d`},
		{"a duration that is not one", `account: {slug: acme, booking_rules: {max_advance: soon}}`,
			`account.booking_rules.max_advance: "soon" is not a duration like 30m, 2h or 60d`},
		{"seconds", `account: {slug: acme, booking_rules: {cancel_cutoff: 90s}}`, `account.booking_rules.cancel_cutoff: "90s" is not a duration`},
		{"more than ten years", `account: {slug: acme, booking_rules: {max_advance: 3651d}}`, `account.booking_rules.max_advance: "3651d"`},
		{"no horizon of 0", `account: {slug: acme, booking_rules: {max_advance: 0m}}`, `account.booking_rules.max_advance: max_advance must be longer than 0`},
		{"a buffer as a duration", `account: {slug: acme, booking_rules: {buffer_before: 10m}}`,
			`account.booking_rules.buffer_before: 10m is not a whole number of minutes from 0 to 1440`},
		{"a negative buffer", `account: {slug: acme, booking_rules: {buffer_after: -5}}`, `account.booking_rules.buffer_after: -5 is not a whole number of minutes`},
		{"a limit of 0", `account: {slug: acme, booking_rules: {max_future_per_client: 0}}`,
			`account.booking_rules.max_future_per_client: 0 is not a whole number from 1 to 1000`},
		{"allow_series not a boolean", `account: {slug: acme, booking_rules: {allow_series: maybe}}`,
			`account.booking_rules.allow_series: maybe is not true or false`},
		{"an unknown rule", `account: {slug: acme, booking_rules: {min_notise: 2h}}`, `account.booking_rules.min_notise: "min_notise" is not a booking rule (min_notice, max_advance`},
		{"a service's rules", "account: {slug: acme}\nservices: [{key: s, name: S, booking_rules: {buffer_after: 1.5}}]",
			`services[0].booking_rules.buffer_after: 1.5 is not a whole number of minutes`},
	} {
		t.Run(test.name, func(t *testing.T) {
			f, err := workspace.Parse([]byte(test.file))
			if err == nil {
				err = workspace.Validate(f, nil)
			}
			if err == nil || !strings.Contains(err.Error(), test.want) {
				t.Errorf("err = %v\nwant %q", err, test.want)
			}
		})
	}
}

// TestBookingRulesApply: the file's rules are stored as given and read back
// by calendar.EffectiveRules; a later file that leaves booking_rules out
// keeps them, one that gives null clears them.
func TestBookingRulesApply(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		now := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
		apply := func(file string) {
			t.Helper()
			if _, err := applier(store, now).Apply(context.Background(), []byte(file)); err != nil {
				t.Fatal(err)
			}
		}
		apply(`account: {slug: acme, booking_rules: {min_notice: 2h, max_advance: 60d, cancel_cutoff: 24h, buffer_before: 0, buffer_after: 0, max_future_per_client: 3}}
services:
  - {key: cleaning, name: Cleaning, booking_rules: {min_notice: 12h, buffer_after: 10, allow_series: true}}
  - {key: physio, name: Physio}`)
		acct, err := account.BySlug(context.Background(), store, "acme")
		if err != nil {
			t.Fatal(err)
		}
		rules := func(key string) string {
			t.Helper()
			var id int64
			for _, s := range mustServices(t, store, acct) {
				if s.Name == key {
					id = s.ID
				}
			}
			r, err := calendar.EffectiveRules(context.Background(), store, acct, id)
			if err != nil {
				t.Fatal(err)
			}
			adv, limit := "none", "none"
			if r.MaxAdvance != nil {
				adv = r.MaxAdvance.String()
			}
			if r.MaxFuturePerClient != nil {
				limit = strings.Repeat("I", *r.MaxFuturePerClient)
			}
			series := ""
			if r.AllowSeries {
				series = " series"
			}
			return r.MinNotice.String() + " " + adv + " " + r.CancelCutoff.String() + " " + strings.Repeat("b", r.BufferBefore) + "|" + strings.Repeat("a", r.BufferAfter) + " " + limit + series
		}
		if got := rules("Cleaning"); got != "12h0m0s 1440h0m0s 24h0m0s |aaaaaaaaaa III series" {
			t.Errorf("cleaning = %q", got)
		}
		if got := rules("Physio"); got != "2h0m0s 1440h0m0s 24h0m0s | III" {
			t.Errorf("physio = %q", got)
		}
		apply(`account: {slug: acme, name: Acme}
services: [{key: cleaning, name: Cleaning}]`)
		if got := rules("Cleaning"); got != "12h0m0s 1440h0m0s 24h0m0s |aaaaaaaaaa III series" {
			t.Errorf("a file without booking_rules changed them: %q", got)
		}
		apply(`account: {slug: acme, booking_rules: null}
services: [{key: cleaning, booking_rules: {max_advance: null}}]`)
		if got := rules("Cleaning"); got != "0s none 0s | none" {
			t.Errorf("cleared = %q", got)
		}
	})
}

func mustServices(t *testing.T, store *db.DB, acct account.Account) []calendar.Service {
	t.Helper()
	list, err := calendar.ListServices(context.Background(), store, acct)
	if err != nil {
		t.Fatal(err)
	}
	return list
}
