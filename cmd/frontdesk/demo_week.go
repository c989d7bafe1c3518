package main

// The demo clinic's current week (docs/demo.md): appointments from Monday
// to Sunday around the clock's today, with the confirmations, check-ins,
// cancellations, seat offers and a patient's message a real week has. It
// is written through the areas' own use cases — booking, confirmation,
// check-in, a patient's cancellation with its seat offers, a channel
// message — never by SQL, so every effect (outbox, webhooks, holds) is
// the real one. Given the clock it is deterministic.

import (
	"context"
	"fmt"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/offers"
	"github.com/frontdesk/frontdesk/internal/waitlist"
)

// demoVisit is one appointment of the demo week: who, with whom, what.
type demoVisit struct {
	pro, service string
	minutes      int
}

// The demo's professionals and services, by the names booking takes.
var (
	demoLopez    = demoVisit{"Dra. López", "Limpieza dental", 30}
	demoLopezRev = demoVisit{"Dra. López", "Revisión general", 20}
	demoMartin   = demoVisit{"Dr. Martín", "Revisión general", 20}
	demoMartinCl = demoVisit{"Dr. Martín", "Limpieza dental", 30}
	demoRuiz     = demoVisit{"Pablo Ruiz", "Fisioterapia", 45}
)

// demoPatients are the demo workspace's patients the week books (their
// phones), in the order visits take them.
var demoPatients = []string{
	"+34612345678", "+34623456781", "+34634567812", "+34645678123", "+34656781234", "+34667812345",
	"+34678123456", "+34689012345", "+34690123456", "+34601234987", "+34611987654", "+34622876543",
	"+34633765432", "+34644654321", "+34655543210", "+34666432109", "+34677321098", "+34688210987",
	"+34699887766", "+447700900456", "+447700900123",
}

// demoSlot is a visit at a wall-clock time of a day, in minutes from
// midnight (working days) or from now (today).
type demoSlot struct {
	at int
	demoVisit
}

// demoWorkday is a working day's visits, inside the demo's working hours
// (docs/demo.md); Saturday has physiotherapy only, Sunday nothing.
func demoWorkday(wd time.Weekday) []demoSlot {
	h := func(hh, mm int) int { return hh*60 + mm }
	switch wd {
	case time.Sunday:
		return nil
	case time.Saturday:
		return []demoSlot{{h(10, 0), demoRuiz}, {h(11, 0), demoRuiz}, {h(12, 30), demoRuiz}}
	}
	day := []demoSlot{{h(9, 0), demoLopez}, {h(10, 0), demoLopezRev}, {h(11, 0), demoLopez}, {h(12, 30), demoLopez},
		{h(10, 30), demoMartin}, {h(12, 0), demoMartinCl}}
	if wd == time.Tuesday || wd == time.Thursday {
		return append(day, demoSlot{h(16, 0), demoRuiz}, demoSlot{h(18, 30), demoRuiz})
	}
	return append(day, demoSlot{h(9, 0), demoRuiz}, demoSlot{h(11, 30), demoRuiz})
}

// demoToday is today's visits, in minutes from now (rounded down to the
// quarter hour), so the morning behind is always there whatever the time:
// the past ones get their outcome, the rest wait.
var demoToday = []demoSlot{
	{-180, demoLopez}, {-150, demoRuiz}, {-120, demoMartin}, {-90, demoLopezRev}, {-60, demoRuiz}, {-30, demoMartinCl},
	{30, demoLopez}, {60, demoRuiz}, {90, demoMartin}, {120, demoLopez}, {150, demoMartinCl},
}

// demoOutcome is what became of a past visit.
type demoOutcome int

const (
	demoCompleted     demoOutcome = iota // arrived, then completed
	demoCompletedOnly                    // completed without an arrival mark
	demoNoShow
	demoArrived // in the waiting room now
	demoCancelled
)

// demoTodayOutcomes are the outcomes of today's past visits, in order.
var demoTodayOutcomes = []demoOutcome{demoCompleted, demoNoShow, demoCompleted, demoCompletedOnly, demoCompleted, demoArrived}

// demoConfirmations cycle over the visits still to come.
var demoConfirmations = []string{calendar.ConfirmationConfirmed, calendar.ConfirmationPending, calendar.ConfirmationConfirmed,
	calendar.ConfirmationDeclined, calendar.ConfirmationPending}

// seedDemoWeek books the demo clinic's current week (Monday to Sunday in
// its zone) around now, adds the waiting list (seedDemoWaitlist), then
// lets a patient cancel the last visit still to come through the manage
// link's path (the freed time is offered to the waiting
// list at once, holding seats), and leaves a patient's message unanswered
// in the inbox. It runs after seedDemoWaitlist, so the offers find the
// waiting patients.
func seedDemoWeek(ctx context.Context, store *db.DB, acct account.Account, now time.Time) error {
	loc := acct.Location()
	local := now.In(loc)
	today := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, loc)
	monday := today.AddDate(0, 0, -((int(today.Weekday()) + 6) % 7))
	quarter := local.Truncate(15 * time.Minute) // zones here are whole quarter hours
	n := 0
	var later []int64 // booked visits still to come, in booking order
	for d := range 7 {
		day := monday.AddDate(0, 0, d)
		if day.Equal(today) {
			for i, s := range demoToday {
				start := quarter.Add(time.Duration(s.at) * time.Minute)
				id, err := demoBook(ctx, store, acct, s.demoVisit, start, n, now)
				if err != nil {
					return err
				}
				if i < len(demoTodayOutcomes) {
					err = demoSettle(ctx, store, acct, id, start, s.minutes, demoTodayOutcomes[i], now)
				} else {
					later = append(later, id)
					err = demoConfirm(ctx, store, acct, id, demoConfirmations[n%len(demoConfirmations)], start, now)
				}
				if err != nil {
					return err
				}
				n++
			}
			continue
		}
		for _, s := range demoWorkday(day.Weekday()) {
			start := time.Date(day.Year(), day.Month(), day.Day(), 0, s.at, 0, 0, loc)
			id, err := demoBook(ctx, store, acct, s.demoVisit, start, n, now)
			if err != nil {
				return err
			}
			if day.Before(today) {
				outcome := demoCompleted
				switch n % 9 {
				case 4:
					outcome = demoNoShow
				case 7:
					outcome = demoCancelled
				}
				err = demoSettle(ctx, store, acct, id, start, s.minutes, outcome, now)
			} else {
				later = append(later, id)
				err = demoConfirm(ctx, store, acct, id, demoConfirmations[n%len(demoConfirmations)], start, now)
			}
			if err != nil {
				return err
			}
			n++
		}
	}
	if err := seedDemoWaitlist(ctx, store, acct, now); err != nil {
		return err
	}
	if len(later) > 0 {
		if err := demoPatientCancels(ctx, store, acct, later[len(later)-1], now); err != nil {
			return err
		}
	}
	if err := demoSeatReplies(ctx, store, acct, now); err != nil {
		return err
	}
	return demoUnansweredMessage(ctx, store, acct, now)
}

// demoBookedAt is when visit n was booked: a day to four before the
// earlier of its start and now.
func demoBookedAt(start, now time.Time, n int) time.Time {
	return earlier(start, now).Add(-time.Duration(1+n%4)*24*time.Hour - time.Duration(n%7)*13*time.Minute)
}

// earlier is the earlier of two instants.
func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// demoBook books visit v at start for the n-th patient of demoPatients, as
// the API does, at the time it was booked.
func demoBook(ctx context.Context, store *db.DB, acct account.Account, v demoVisit, start time.Time, n int, now time.Time) (int64, error) {
	wall := func(t time.Time) calendar.WallTime {
		w, _ := calendar.ParseWallTime(t.In(acct.Location()).Format("2006-01-02T15:04:05"))
		return w
	}
	pro, svc, et := v.pro, v.service, "Presencial"
	b, err := calendar.Book(ctx, store, acct, calendar.BookRequest{
		Client:      calendar.ClientInput{Phone: demoPatients[n%len(demoPatients)]},
		ServiceName: &svc, ProfessionalName: &pro, EventTypeName: &et,
		StartAt: wall(start), EndAt: wall(start.Add(time.Duration(v.minutes) * time.Minute)), Timezone: acct.Timezone,
		Source: "dashboard"}, demoBookedAt(start, now, n))
	if err != nil {
		return 0, fmt.Errorf("book %s at %s: %w", v.service, start.Format(time.RFC3339), err)
	}
	return b.Appointment.ID, nil
}

// demoConfirm records the patient's answer to the confirmation request
// (none for pending), two hours after the booking.
func demoConfirm(ctx context.Context, store *db.DB, acct account.Account, id int64, status string, start, now time.Time) error {
	if status == calendar.ConfirmationPending {
		return nil
	}
	at := earlier(start.Add(-time.Hour), now)
	return store.Transact(ctx, func(tx *db.Tx) error {
		_, err := calendar.SetConfirmation(ctx, tx, acct, id, status, at)
		return err
	})
}

// demoSettle gives a visit that has begun its outcome, each step at the
// time the front desk would have taken it (never after now).
func demoSettle(ctx context.Context, store *db.DB, acct account.Account, id int64, start time.Time, minutes int, outcome demoOutcome, now time.Time) error {
	if outcome == demoCancelled {
		return calendar.CancelAppointment(ctx, store, acct, id, calendar.Change{By: calendar.ByPatient, Reason: "No puedo ir"},
			start.Add(-20*time.Hour))
	}
	if err := demoConfirm(ctx, store, acct, id, calendar.ConfirmationConfirmed, start, now); err != nil {
		return err
	}
	end := start.Add(time.Duration(minutes) * time.Minute)
	steps := map[demoOutcome][]struct {
		status string
		at     time.Time
	}{
		demoCompleted:     {{calendar.StatusArrived, start}, {calendar.StatusCompleted, end}},
		demoCompletedOnly: {{calendar.StatusCompleted, end}},
		demoNoShow:        {{calendar.StatusNoShow, start.Add(15 * time.Minute)}},
		demoArrived:       {{calendar.StatusArrived, start}},
	}[outcome]
	for _, s := range steps {
		if _, err := calendar.MarkAppointmentStatus(ctx, store, acct, id, s.status, earlier(s.at, now)); err != nil {
			return fmt.Errorf("mark appointment %d %s: %w", id, s.status, err)
		}
	}
	return nil
}

// demoPatientCancels cancels a visit still to come as its patient does
// through the manage link (docs/manage-links.md): the time it frees is
// offered to the waiting list at once, so seats are held for waiting
// patients.
func demoPatientCancels(ctx context.Context, store *db.DB, acct account.Account, id int64, now time.Time) error {
	return store.Transact(ctx, func(tx *db.Tx) error {
		a, err := calendar.CancelAppointmentTx(ctx, tx, acct, id, calendar.Change{By: calendar.ByPatient, Reason: "Me ha surgido un viaje"}, now)
		if err != nil {
			return err
		}
		return offers.OfferFreedTime(ctx, tx, acct, a.ProfessionalID, now)
	})
}

// demoSeatReplies has the patient offered the latest seat take it (booked
// from the waiting list, already confirmed) and the one offered the
// earliest seat not yet begun turn it down (back to waiting), as their "sí" and "no" replies
// do (docs/contract.md, Replies that act); the other seats stay held.
func demoSeatReplies(ctx context.Context, store *db.DB, acct account.Account, now time.Time) error {
	return store.Transact(ctx, func(tx *db.Tx) error {
		held, err := waitlist.OfferedSlots(ctx, tx, acct, waitlist.OfferFilter{HeldAt: now})
		if err != nil || len(held) < 3 {
			return err
		}
		if _, err := offers.Reply(ctx, tx, acct, held[len(held)-1].ClientID, true, true, now); err != nil {
			return err
		}
		for _, o := range held[:len(held)-1] {
			if o.Start.After(now) { // an offer of a slot already begun takes no answer
				_, err = offers.Reply(ctx, tx, acct, o.ClientID, false, true, now)
				break
			}
		}
		return err
	})
}

// demoUnansweredMessage is a patient writing on the clinic's channel a
// little before now, as a provider's callback records it: an open, unread
// conversation in the inbox.
func demoUnansweredMessage(ctx context.Context, store *db.DB, acct account.Account, now time.Time) error {
	ch, err := channels.ByKeyWithoutCredentials(ctx, store, acct, "log")
	if err != nil {
		return err
	}
	msgs := []struct {
		ago     time.Duration
		content string
	}{
		{25 * time.Minute, "Hola, soy Hugo Prieto. ¿Me podéis decir si tengo cita esta semana?"},
		{24 * time.Minute, "Es que no encuentro el mensaje de confirmación 🙏"},
	}
	return store.Transact(ctx, func(tx *db.Tx) error {
		for _, m := range msgs {
			at := now.Add(-m.ago)
			if _, _, _, err := chat.RecordChannelMessage(ctx, tx, acct, chat.ChannelMessage{ChannelID: ch.ID, Phone: "+34666432109",
				PhoneNational: "666432109", Inbound: true, Content: m.content, At: at}, at); err != nil {
				return err
			}
		}
		return nil
	})
}
