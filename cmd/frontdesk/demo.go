package main

import (
	"context"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/waitlist"
)

// demoWaiting are the demo clinic's patients on its waiting list: the
// workspace file has no section for entries (they come from the API), so the
// demo adds them through the same use case the API calls.
var demoWaiting = []struct {
	phone, service string
	priority       int
	notes          string
}{
	{"+34612345678", "Limpieza dental", 1, "Prefiere primera hora"},
	{"+34634567812", "Fisioterapia", 0, "Dolor lumbar, urgente"},
	{"+34656781234", "Revisión general", 2, ""},
	{"+34667812345", "Fisioterapia", 2, "Solo tardes"},
	{"+34689012345", "Limpieza dental", 3, ""},
}

func seedDemoWaitlist(ctx context.Context, store *db.DB, acct account.Account, now time.Time) error {
	for i, w := range demoWaiting {
		p := w.priority
		notes := w.notes
		// Spread the entries over the last days so positions and
		// days_waiting look lived in.
		at := now.Add(-time.Duration(len(demoWaiting)-i) * 26 * time.Hour)
		if _, err := waitlist.Add(ctx, store, acct, waitlist.AddRequest{Phone: w.phone, ServiceNames: []string{w.service},
			Prefs: waitlist.Prefs{Priority: &p, Notes: &notes}}, at); err != nil {
			return err
		}
	}
	return nil
}
