package clientserver_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/client"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

func TestCalendar(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newEnv(t, store)
		c := e.client()
		ctx := context.Background()

		services := must[[]client.Service](t)(c.ListServices(ctx))
		if len(services) != 1 || services[0].Name != "Limpieza dental" || len(services[0].Professionals) != 1 {
			t.Fatalf("services = %+v", services)
		}
		av := must[*client.Availability](t)(c.GetAvailability(ctx, client.AvailabilityParams{Days: 2, ServiceIDs: []int64{services[0].ID}}))
		if av.Days != 2 || av.StartDate != "2026-11-23" || av.EndDate != "2026-11-24" || len(av.Services[0].ByDay) != 2 {
			t.Fatalf("availability = %+v", av)
		}

		fs := must[*client.FreeSlots](t)(c.GetFreeSlots(ctx, client.FreeSlotsParams{ServiceID: services[0].ID, StartDate: "2026-12-01", Days: 1, Limit: 2}))
		if fs.EndDate != "2026-12-01" || fs.DurationMinutes != 30 || len(fs.Slots) != 2 || !fs.HasMore ||
			fs.Slots[0].StartAt != "2026-12-01T09:00:00" || !fs.Slots[0].StartAtUTC.Equal(time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)) ||
			fs.Slots[0].Professional != services[0].Professionals[0] {
			t.Fatalf("free slots = %+v", fs)
		}
		_, slotsErr := c.GetFreeSlots(ctx, client.FreeSlotsParams{ServiceID: 999999})
		var apiErr *client.Error
		if !errors.As(slotsErr, &apiErr) || apiErr.ErrorCode != "SERVICE_NOT_FOUND" {
			t.Fatalf("unknown service: %v", slotsErr)
		}

		madrid, _ := time.LoadLocation("Europe/Madrid")
		req := client.BookingRequest{
			Client:    client.BookingClient{FirstName: "Luis", LastName: "Pérez", Phone: "+34600999888"},
			ServiceID: services[0].ID, ProfessionalName: "dr. lopez", EventTypeName: "IN PERSON",
			StartAt:  client.WallClock(time.Date(2026, 12, 1, 10, 0, 0, 0, madrid)),
			EndAt:    client.WallClock(time.Date(2026, 12, 1, 10, 30, 0, 0, madrid)),
			Timezone: "Europe/Madrid", Notes: "First visit",
		}
		b := must[*client.Booking](t)(c.Book(ctx, req, client.WithIdempotencyKey("booking-1")))
		if !b.ClientCreated || b.Appointment.Status != "booked" || !b.Appointment.StartAt.Equal(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)) ||
			b.Appointment.Client.Phone != "+34600999888" || b.Appointment.CustomFields["booked_by"] != "api" {
			t.Fatalf("booking = %+v", b)
		}
		// The same key and body: the first answer, replayed; no second appointment.
		var info client.CallInfo
		replay := must[*client.Booking](t)(c.Book(ctx, req, client.WithIdempotencyKey("booking-1"), client.WithCallInfo(&info), client.WithRequestID("trace-42")))
		if replay.Appointment.ID != b.Appointment.ID || !info.Replayed || info.StatusCode != 200 || info.RequestID != "trace-42" || info.Attempts != 1 {
			t.Fatalf("replayed booking %d (%+v), want %d", replay.Appointment.ID, info, b.Appointment.ID)
		}
		req.Notes = "changed"
		_, err := c.Book(ctx, req, client.WithIdempotencyKey("booking-1"))
		apiError(t, err, 400, client.CodeIdempotencyKeyReused)

		req.ServiceID, req.ServiceName = 0, "Ortodoncia"
		_, err = c.Book(ctx, req)
		var cat client.CatalogDetails
		apiError(t, err, 400, client.CodeServiceNotFound).DecodeDetails(&cat)
		if cat.Field != "service_name" || !slices.Equal(cat.ValidServiceNames, []string{"Limpieza dental"}) {
			t.Fatalf("catalog details = %+v", cat)
		}
		if e := apiError(t, err, 400, client.CodeServiceNotFound); e.Field() != "service_name" {
			t.Fatalf("Field() = %q", e.Field())
		}
		_, err = c.Book(ctx, client.BookingRequest{Client: client.BookingClient{Phone: "+34600999888"}})
		if verr := apiError(t, err, 422, client.CodeInvalidRequest); len(verr.Validation) < 3 {
			t.Fatalf("422 = %+v", verr.Validation)
		}
	})
}

func TestWaitlist(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newEnv(t, store)
		c := e.client()
		ctx := context.Background()
		cleaning := e.ids.Services["cleaning"]
		list := e.ids.Waitlists["main"]

		add := client.WaitlistAddRequest{Phone: "+34600111222", ServiceIDs: []int64{cleaning},
			WaitlistPrefs: client.WaitlistPrefs{Priority: client.Ptr(0), TimePreference: client.Ptr("morning")}}
		first := must[*client.WaitlistAddResult](t)(c.AddToWaitlist(ctx, add))
		entry := first.Entries[0]
		if first.ClientCreated || !*entry.Created || entry.Priority != 0 || *entry.Position != 1 || entry.PreferredTimeWindows[0] != "morning" {
			t.Fatalf("add = %+v", first)
		}
		second := must[*client.WaitlistAddResult](t)(c.AddToWaitlist(ctx, add))
		if *second.Entries[0].Created || second.Entries[0].ID != entry.ID {
			t.Fatalf("add again = %+v", second)
		}

		rows := []client.WaitlistBatchRowInput{
			{Phone: "611222333", FirstName: "Ana", ServiceNames: []string{"Limpieza dental"}},
			{Phone: "bad", ServiceIDs: []int64{cleaning}},
		}
		_, err := c.BatchWaitlist(ctx, client.WaitlistBatchRequest{WaitlistID: list, Entries: rows})
		var refused client.ImportHasErrorsDetails
		apiError(t, err, 400, client.CodeImportHasErrors).DecodeDetails(&refused)
		if refused.Summary.Error != 1 || refused.Rows[1].Status != client.RowError || refused.Rows[0].ClientID != nil {
			t.Fatalf("refused batch = %+v", refused)
		}
		batch := must[*client.WaitlistBatchResult](t)(c.BatchWaitlist(ctx, client.WaitlistBatchRequest{WaitlistID: list, Entries: rows, SkipInvalid: true}))
		if batch.EntriesCreated != 1 || batch.Rows[0].Status != client.RowWillCreateClient || *batch.Rows[0].Phone != "+34611222333" {
			t.Fatalf("batch = %+v", batch)
		}

		page := must[*client.Page[client.WaitlistEntry]](t)(c.ListWaitlistEntries(ctx, client.WaitlistEntryFilter{WaitlistID: list}))
		if page.Count != 2 || page.Data[0].ID != entry.ID || page.Data[0].Created != nil {
			t.Fatalf("entries = %+v", page)
		}
		got := must[*client.WaitlistEntry](t)(c.GetWaitlistEntry(ctx, entry.ID))
		if got.Client.FirstName != "María" || got.Service.ID != cleaning {
			t.Fatalf("entry = %+v", got)
		}
		sum := must[*client.WaitlistSummary](t)(c.GetWaitlistSummary(ctx))
		if sum.Totals.WaitingEntries != 2 || sum.Lists[0].Status != "active" {
			t.Fatalf("summary = %+v", sum)
		}
		removed := must[*client.WaitlistEntry](t)(c.RemoveWaitlistEntry(ctx, entry.ID, "booked by phone"))
		if removed.Status != "removed" || removed.Position != nil || *removed.ResolutionReason != "booked by phone" || removed.ResolvedAt == nil {
			t.Fatalf("removed = %+v", removed)
		}
		many := must[*client.CountResult](t)(c.RemoveWaitlistEntries(ctx, []int64{entry.ID, page.Data[1].ID, 999999}, ""))
		if many.SuccessCount != 1 || many.SkippedCount != 2 {
			t.Fatalf("remove many = %+v", many)
		}
		_, err = c.GetWaitlistEntry(ctx, 999999)
		apiError(t, err, 404, client.CodeNotFound)
		_, err = c.AddToWaitlist(ctx, client.WaitlistAddRequest{ServiceIDs: []int64{cleaning}})
		if verr := apiError(t, err, 422, client.CodeInvalidRequest); verr.Validation[0].Field() != "phone" || verr.Validation[0].Type != "missing" {
			t.Fatalf("422 = %+v", verr.Validation)
		}
	})
}
