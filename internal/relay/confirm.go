package relay

import (
	"context"
	"time"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/texts"
)

// ConfirmationReplies is the ReplyHandler for booking confirmation
// requests (docs/contract.md, Replies that act): a yes confirms and a no declines the
// appointment the calendar finds for the sender's number, and answer (may
// be nil) acknowledges it in the account's language. A reply with no
// request waiting, or one repeating the answer already recorded ("ok"
// after "sí"), is not handled: it stays a chat message, or goes to the
// next handler (a seat offer's).
func ConfirmationReplies(answer Answer) ReplyHandler {
	return func(ctx context.Context, tx *db.Tx, r Reply, now time.Time) (bool, error) {
		status, text := calendar.ConfirmationConfirmed, texts.Confirmed
		switch r.Intent {
		case channels.IntentYes:
		case channels.IntentNo:
			status, text = calendar.ConfirmationDeclined, texts.Declined
		default:
			return false, nil
		}
		c, found, err := calendar.AnswerConfirmation(ctx, tx, r.Account, r.Phone.E164(), status, now)
		if err != nil || !found || !c.Changed {
			return false, err
		}
		if answer != nil {
			if err := answer(ctx, tx, r, texts.Render(r.Settings.Language, text, texts.Vars{}), now); err != nil {
				return false, err
			}
		}
		return true, nil
	}
}
