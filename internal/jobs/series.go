package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/texts"
)

// QueueSeriesConfirmation queues a weekly series' one confirmation request
// (docs/series.md), when the account's notifications ask for one: sent now
// for the first occurrence b, listing every occurrence's date. The
// occurrences' own confirmation requests are skipped; their reminders are
// each their own (QueueBookingNotifications).
func QueueSeriesConfirmation(ctx context.Context, tx *db.Tx, acct account.Account, b Booking, dates []time.Time, now time.Time) error {
	var raw, lang string
	if err := tx.QueryRow(ctx, `SELECT notifications, language FROM accounts WHERE id = ?`, acct.ID).Scan(&raw, &lang); err != nil {
		return fmt.Errorf("notification settings: %w", err)
	}
	var settings NotificationSettings
	json.Unmarshal([]byte(raw), &settings)
	if !settings.ConfirmationRequest {
		return nil
	}
	loc := b.Location
	if loc == nil {
		loc = acct.Location()
	}
	local := make([]time.Time, len(dates))
	for i, d := range dates {
		local[i] = d.In(loc)
	}
	linkLine, err := manageLinkLine(ctx, tx, acct, lang, b.AppointmentID)
	if err != nil {
		return err
	}
	body := texts.Render(lang, texts.SeriesConfirmationRequest, texts.Vars{Name: b.ClientName, Service: b.ServiceName,
		Professional: b.Professional, Dates: local}) + linkLine
	clientID := b.ClientID
	return QueueMessage(ctx, tx, acct, now, Message{Kind: MsgConfirmation, Channel: "whatsapp", Recipient: b.Recipient,
		ClientID: &clientID, Body: body, Source: MessageSource{Type: "booking", ID: &b.AppointmentID}}, time.Time{}, nil)
}
