package jobs

// The calendar's notification settings as the dashboard's settings edit
// them (the workspace file's account.notifications writes the same JSON).

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// MaxReminders caps the reminders before an appointment.
const MaxReminders = 5

// ReminderLead is how long before an appointment a reminder may go out:
// at least a minute (a reminder at the appointment's start reminds no one)
// and at most 30 days.
var ReminderLead = clock.Range{Min: time.Minute, Max: 30 * 24 * time.Hour}

// Refusals of reminder lead times, in words the dashboard translates
// (values go in the details).
const (
	msgReminderLead  = "A reminder goes out 1 minute to 30 days before the appointment: write a number and a unit, like 24h, 2h, 30m or 2d."
	msgReminderTwice = "Two reminders at the same time before the appointment."
)

// ParseReminderLead reads one reminder's lead time ("24h", "30m", "2d")
// within ReminderLead; a refusal is VALIDATION_ERROR naming the field
// "reminders" and the value.
func ParseReminderLead(s string) (time.Duration, error) {
	d, ok := clock.ParseIn(strings.TrimSpace(s), ReminderLead)
	if !ok {
		return 0, errs.WithDetails(errs.ValidationError, map[string]any{"field": "reminders", "value": s,
			"min": clock.Short(ReminderLead.Min), "max": clock.Short(ReminderLead.Max)}, msgReminderLead)
	}
	return d, nil
}

// LoadNotificationSettings reads the account's settings; stored settings
// that do not read are the zero settings, as bookings read them.
func LoadNotificationSettings(ctx context.Context, q db.Querier, acct account.Account) (NotificationSettings, error) {
	var raw string
	if err := q.QueryRow(ctx, `SELECT notifications FROM accounts WHERE id = ?`, acct.ID).Scan(&raw); err != nil {
		return NotificationSettings{}, fmt.Errorf("notification settings: %w", err)
	}
	var s NotificationSettings
	json.Unmarshal([]byte(raw), &s)
	if s.Reminders == nil {
		s.Reminders = []string{}
	}
	return s, nil
}

// NormalizeReminders checks lead times ("24h", "2h", "1d"): each within
// ReminderLead, at most MaxReminders, no two equal; blanks are dropped.
// They come back longest first. Every door that sets reminders (the
// dashboard, the workspace file) calls it.
func NormalizeReminders(leads []string) ([]string, error) {
	type lead struct {
		text string
		d    time.Duration
	}
	var ls []lead
	for _, r := range leads {
		r = strings.TrimSpace(r)
		if r == "" {
			continue
		}
		d, err := ParseReminderLead(r)
		if err != nil {
			return nil, err
		}
		for _, l := range ls {
			if l.d == d {
				return nil, errs.WithDetails(errs.ValidationError, map[string]any{"field": "reminders", "value": r}, msgReminderTwice)
			}
		}
		ls = append(ls, lead{r, d})
	}
	if len(ls) > MaxReminders {
		return nil, errs.WithDetails(errs.ValidationError, map[string]any{"field": "reminders", "max": MaxReminders}, "At most %d reminders.", MaxReminders)
	}
	slices.SortFunc(ls, func(a, b lead) int { return int((b.d - a.d) / time.Second) })
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.text
	}
	return out, nil
}

// SaveNotificationSettings stores the account's settings after checking
// the reminders' lead times, and returns them as stored. They apply to
// bookings made from now on; reminders already queued stay.
func SaveNotificationSettings(ctx context.Context, q db.Querier, acct account.Account, s NotificationSettings, now time.Time) (NotificationSettings, error) {
	rs, err := NormalizeReminders(s.Reminders)
	if err != nil {
		return NotificationSettings{}, err
	}
	s.Reminders = rs
	raw, _ := json.Marshal(s)
	if _, err := q.Exec(ctx, `UPDATE accounts SET notifications = ?, updated_at = ? WHERE id = ?`, string(raw), db.Micros(now), acct.ID); err != nil {
		return NotificationSettings{}, fmt.Errorf("save notification settings: %w", err)
	}
	return s, nil
}
