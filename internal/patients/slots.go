package patients

import (
	"context"
	"time"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// Bounds of a patient's free-slots query (docs/patient-api.md).
const (
	SlotDaysDefault = calendar.SlotDaysDefault
	SlotDaysMax     = calendar.SlotDaysMax
	SlotLimit       = 200
)

// SlotQuery is a patient's free-slots request.
type SlotQuery struct {
	ServiceID      int64
	ProfessionalID *int64 // nil: every professional of the service
	StartDate      string // YYYY-MM-DD in the account's zone; "" is today
	Days           int    // 1..SlotDaysMax; 0 is SlotDaysDefault
}

// Slots lists the free slots of one of the page's services, in the
// account's zone, through the one slot engine every door reads
// (calendar.ListFreeSlots), at most SlotLimit. A service that is not on
// the page is SERVICE_NOT_FOUND.
func Slots(ctx context.Context, store *db.DB, p Page, q SlotQuery, now time.Time) (calendar.SlotList, error) {
	if _, ok := p.Service(q.ServiceID); !ok {
		return calendar.SlotList{}, serviceNotFound(p, q.ServiceID)
	}
	if q.Days == 0 {
		q.Days = SlotDaysDefault
	}
	if q.Days < 1 || q.Days > SlotDaysMax {
		return calendar.SlotList{}, errs.WithDetails(errs.ValidationError, map[string]any{"field": "days"},
			"days must be between 1 and %d.", SlotDaysMax)
	}
	sq := calendar.SlotsQuery{ServiceID: q.ServiceID, StartDate: q.StartDate, Days: q.Days,
		Timezone: p.Account.Timezone, Limit: SlotLimit}
	if q.ProfessionalID != nil {
		sq.ProfessionalIDs = []int64{*q.ProfessionalID}
	}
	return calendar.ListFreeSlots(ctx, store, p.Account, sq, now)
}
