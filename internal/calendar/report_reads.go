package calendar

// Reads for the reports (docs/reports.md): the late-cancel rule of a
// client's record (ClientAttendance), for a period's cancellations.

import (
	"context"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// LateCancelRule is the account's late-cancel rule (docs/check-in.md), as
// ClientAttendance applies it: a cancellation is late when it came less
// than the service's cancel_cutoff before the start, or LateCancelWindow
// when the service's booking rules set none.
type LateCancelRule struct{ book *ruleBook }

// LoadLateCancelRule reads the account's booking rules once for many
// cancellations.
func LoadLateCancelRule(ctx context.Context, q db.Querier, acct account.Account) (LateCancelRule, error) {
	book, err := loadRuleBook(ctx, q, acct)
	return LateCancelRule{book}, err
}

// Late reports whether cancelling an appointment of serviceID starting at
// start, at cancelledAt (a cancelled appointment's last change, its
// updated_at), was late.
func (r LateCancelRule) Late(serviceID int64, start, cancelledAt time.Time) bool {
	window := r.book.of(serviceID).CancelCutoff
	if window <= 0 {
		window = LateCancelWindow
	}
	return start.Sub(cancelledAt) < window
}
