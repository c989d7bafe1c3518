package calendar

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/valid"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/jobs"
	"github.com/frontdesk/frontdesk/internal/phone"
	"github.com/frontdesk/frontdesk/internal/waitlist"
)

// ClientInput is the booking's client object, as sent.
type ClientInput struct {
	FirstName, LastName, Phone, Email string
}

// Limits on a booking's values (docs/contract.md, Limits), checked by every
// front door's decoder.
const (
	MaxNameLen     = contact.MaxNameLen // client first_name, last_name
	MaxEmailLen    = 255                // client email
	MaxRefNameLen  = 255                // service_name, professional_name, event_type_name
	MaxTimezoneLen = 64                 // timezone
	MaxNotesLen    = 2000               // notes
)

// BookRequest is a booking that passed schema validation. Each of service,
// professional and event type is named by id or by name (at least one of
// each pair is set); the id wins when both are.
type BookRequest struct {
	Client           ClientInput
	ServiceID        *int64
	ServiceName      *string
	ProfessionalID   *int64
	ProfessionalName *string
	EventTypeID      *int64
	EventTypeName    *string
	StartAt, EndAt   WallTime
	Timezone         string
	Notes            string
	// Source is written on the appointment ("api" when empty; the
	// dashboard writes "dashboard").
	Source string
	// FreeSlotOnly refuses the booking (ErrSlotTaken, ErrSlotPast) unless
	// the slot engine counts the slot free: the dashboard books from its
	// free slots, the API books anything and warns.
	FreeSlotOnly bool
	// KeepRules refuses a booking that breaks a booking rule with
	// *RulesBroken (the patient API); without it the booking is made and
	// each broken rule is a breaks_booking_rule warning
	// (docs/booking-rules.md).
	KeepRules bool
	// series is the weekly series the booking is an occurrence of
	// (BookSeries, docs/series.md); 0 for a single booking.
	series int64
}

// Colored is the {id, name, color} shape of a service or event type in an
// appointment.
type Colored struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Color string `json:"color"`
}

// CalendarProfile is the professional as an appointment shows it.
type CalendarProfile struct {
	CalendarProfileID int64  `json:"calendar_profile_id"`
	Name              string `json:"name"`
}

// Appointment is the booking response's data.
type Appointment struct {
	ID                 int64           `json:"id"`
	StartAt            string          `json:"start_at"`
	EndAt              string          `json:"end_at"`
	Timezone           string          `json:"timezone"`
	Status             string          `json:"status"`
	Source             string          `json:"source"`
	ConfirmationStatus string          `json:"confirmation_status"`
	Client             contact.Ref     `json:"client"`
	CalendarProfile    CalendarProfile `json:"calendar_profile"`
	Service            Colored         `json:"service"`
	EventType          Colored         `json:"event_type"`
	CustomFields       map[string]any  `json:"custom_fields"`
	Notes              string          `json:"notes"`
	CreatedAt          string          `json:"created_at"`
	// Resource is the room or equipment the appointment holds, null when
	// its service needs none or none was free (docs/rooms.md).
	Resource *ResourceRef `json:"resource"`
	// Warnings is additive (beyond the contract): what is unusual about
	// the slot, never a refusal; [] when nothing is.
	Warnings []Warning `json:"warnings"`
}

// Booking is what Book made: the appointment and whether its client is new.
type Booking struct {
	Appointment   Appointment
	ClientID      int64
	ClientCreated bool
}

// Book books an appointment exactly as asked. Every value is explicit and
// checked against the catalog; availability never refuses (outside working
// hours, time off, double bookings and past times are accepted and reported
// in the appointment's Warnings), and neither do the booking rules unless
// req.KeepRules (docs/booking-rules.md): each rule broken is a warning. The client is matched by the phone's
// national digits, or created when the phone is new, in the same
// transaction as the appointment, its notifications and the resolution of a
// matching waiting-list entry: a failure leaves nothing behind, so a 500 can
// be retried.
func Book(ctx context.Context, store *db.DB, acct account.Account, req BookRequest, now time.Time) (Booking, error) {
	loc, start, end, num, err := resolveRequest(acct, req)
	if err != nil {
		return Booking{}, err
	}
	var out Booking
	err = store.Transact(ctx, func(tx *db.Tx) error {
		var err error
		out, err = bookIn(ctx, tx, acct, req, num, start, end, loc, now)
		return err
	})
	return out, err
}

// bookIn is Book's work inside its transaction, once the times and phone
// are resolved: BookSeries calls it for each occurrence (docs/series.md).
func bookIn(ctx context.Context, tx *db.Tx, acct account.Account, req BookRequest, num phone.Number, start, end time.Time,
	loc *time.Location, now time.Time) (Booking, error) {
	var out Booking
	err := func() error {
		if err := contact.LockKeys(ctx, tx, acct, contact.Keys{Nationals: []string{num.National}, Emails: []string{req.Client.Email}}); err != nil {
			return err
		}
		cat, err := loadCatalog(ctx, tx, acct)
		if err != nil {
			return err
		}
		svc, pro, et, err := cat.resolve(req)
		if err != nil {
			return err
		}
		if req.KeepRules && req.series != 0 {
			if err := requireSeriesAllowed(ctx, tx, acct, svc); err != nil {
				return err
			}
		}
		if req.FreeSlotOnly {
			if err := requireFree(ctx, tx, acct, pro, start, end, now); err != nil {
				return err
			}
		}
		client, created, err := bookingClient(ctx, tx, acct, req.Client, num, now)
		if err != nil {
			return err
		}
		breaks, err := ruleBreaks(ctx, tx, acct, svc, pro, client.ID, created, start, end, now)
		if err != nil {
			return err
		}
		if req.KeepRules && len(breaks) > 0 {
			broken := &RulesBroken{}
			for _, b := range breaks {
				broken.Rules = append(broken.Rules, b.rule)
			}
			return broken
		}
		out, err = insertBooking(ctx, tx, acct, newBooking{svc: svc, pro: pro, et: et, client: client, created: created,
			start: start, end: end, loc: loc, timezone: req.Timezone, notes: req.Notes, source: cmp.Or(req.Source, "api"), freeOnly: req.FreeSlotOnly, series: req.series}, now)
		if err == nil {
			out.Appointment.Warnings = append(out.Appointment.Warnings, ruleWarnings(breaks)...)
		}
		return err
	}()
	return out, err
}

// resolveRequest reads the request's zone, times and phone, refusing what
// no booking can be made of.
func resolveRequest(acct account.Account, req BookRequest) (*time.Location, time.Time, time.Time, phone.Number, error) {
	loc, ok := LoadZone(req.Timezone)
	if !ok {
		return nil, time.Time{}, time.Time{}, phone.Number{}, errs.WithDetails(errs.InvalidTimezone, map[string]any{"field": "timezone", "value": req.Timezone},
			"timezone %q is not an IANA time zone name (e.g. Europe/Madrid).", req.Timezone)
	}
	start, ok := req.StartAt.In(loc)
	if !ok {
		return nil, time.Time{}, time.Time{}, phone.Number{}, gapError("start_at", req.Timezone)
	}
	end, ok := req.EndAt.In(loc)
	if !ok {
		return nil, time.Time{}, time.Time{}, phone.Number{}, gapError("end_at", req.Timezone)
	}
	if !instantsFit(start, end) {
		return nil, time.Time{}, time.Time{}, phone.Number{}, errs.WithDetails(errs.InvalidTimeRange, map[string]any{"field": "start_at", "timezone": req.Timezone},
			"An appointment must lie between the years 0001 and 9999 in UTC.")
	}
	if !end.After(start) {
		return nil, time.Time{}, time.Time{}, phone.Number{}, errs.WithDetails(errs.InvalidTimeRange, map[string]any{"field": "end_at",
			"start_at": clock.Format(start), "end_at": clock.Format(end)}, "end_at must be after start_at.")
	}
	num, err := phone.ParseWithRegion(req.Client.Phone, acct.DefaultRegion)
	if err != nil {
		return nil, time.Time{}, time.Time{}, phone.Number{}, errs.WithDetails(errs.InvalidPhone, map[string]any{"field": "client.phone"}, "client.phone: %s.", err.Error())
	}

	return loc, start, end, num, nil
}

// greetingName is how messages address the client: the first name, else
// the whole name.
func greetingName(c contact.Client) string {
	if c.FirstName != "" {
		return c.FirstName
	}
	return c.Name()
}

func gapError(field, zone string) error {
	return errs.WithDetails(errs.InvalidTimeRange, map[string]any{"field": field, "timezone": zone},
		"%s does not exist in %s (the clocks skip it at a daylight-saving change); send another time or an explicit UTC offset.", field, zone)
}

// bookingClient applies the single-object phone rule: the client owning the
// national digits is used as stored (names and e-mail sent are ignored); a
// new phone creates a client, which needs a name. The caller holds
// contact.LockKeys for the phone and e-mail.
func bookingClient(ctx context.Context, tx *db.Tx, acct account.Account, in ClientInput, num phone.Number, now time.Time) (contact.Client, bool, error) {
	found, err := contact.ByNationals(ctx, tx, acct, []string{num.National})
	if err != nil {
		return contact.Client{}, false, err
	}
	if c, ok := found[num.National]; ok {
		if c.Phone.CountryCode != num.CountryCode {
			return contact.Client{}, false, errs.WithDetails(errs.ValidationError,
				map[string]any{"field": "client.phone", "conflicting_client_id": c.ID},
				"The national digits of client.phone belong to client %d under another country code (%s).", c.ID, c.Phone.E164())
		}
		return c, false, nil
	}
	first, last, _ := contact.Names(in.FirstName, in.LastName) // their length is DecodeBooking's
	if first == "" && last == "" {
		return contact.Client{}, false, errs.WithDetails(errs.NameRequired, map[string]any{"field": "client.first_name"},
			"client.phone %s is new: send client.first_name or client.last_name to create the client.", num.E164())
	}
	email := strings.TrimSpace(in.Email)
	if _, ok := valid.Email(email); email != "" && !ok {
		return contact.Client{}, false, errs.WithDetails(errs.ValidationError, map[string]any{"field": "client.email"},
			"client.email %q is not an e-mail address.", email)
	}
	ids, err := contact.InsertMany(ctx, tx, acct, []contact.New{{FirstName: first, LastName: last, Phone: num, Email: email}}, now)
	if err != nil {
		return contact.Client{}, false, err
	}
	return contact.Client{ID: ids[0], FirstName: first, LastName: last, Phone: num, Email: email, CreatedAt: now, UpdatedAt: now}, true, nil
}

// resolve finds the service, professional and event type the request names.
// Nothing is ever auto-picked: each must be named, match exactly one
// candidate, and be offered by the service; a refusal lists what would have
// been accepted.
func (c *catalog) resolve(req BookRequest) (*service, *professional, eventType, error) {
	svcs := make([]choice, len(c.services))
	for i, s := range c.services {
		svcs[i] = choice{s.ID, s.Name}
	}
	i, err := pickOne(svcs, req.ServiceID, req.ServiceName, "service", errs.ServiceNotFound, "")
	if err != nil {
		return nil, nil, eventType{}, err
	}
	svc := c.services[i]

	pros := make([]choice, len(svc.Pros))
	for i, p := range svc.Pros {
		pros[i] = choice{p.ID, p.Name}
	}
	i, err = pickOne(pros, req.ProfessionalID, req.ProfessionalName, "professional", errs.ProfessionalNotFound, svc.Name)
	if err != nil {
		return nil, nil, eventType{}, err
	}
	pro := svc.Pros[i]

	types := make([]choice, len(svc.Types))
	for i, e := range svc.Types {
		types[i] = choice{e.ID, e.Name}
	}
	i, err = pickOne(types, req.EventTypeID, req.EventTypeName, "event_type", errs.EventTypeNotFound, svc.Name)
	if err != nil {
		return nil, nil, eventType{}, err
	}
	return svc, pro, svc.Types[i], nil
}

// what names each kind in messages.
var what = map[string]string{"service": "bookable service", "professional": "active professional", "event_type": "active event type"}

// pickOne is pick with the contract's refusals: kind is "service",
// "professional" or "event_type" (the field prefix and the valid_* keys);
// of names the service the candidates belong to.
func pickOne(cands []choice, id *int64, name *string, kind, code, of string) (int, error) {
	idx, ambiguous := pick(cands, id, name)
	if idx >= 0 {
		return idx, nil
	}
	field, value := kind+"_name", any(nil)
	if id != nil {
		field, value = kind+"_id", *id
	} else {
		value = *name
	}
	scope := ""
	if of != "" {
		scope = fmt.Sprintf(" of service %q", of)
	}
	if len(ambiguous) > 0 {
		sortRefs(ambiguous)
		return -1, errs.WithDetails(errs.AmbiguousMatch, map[string]any{"field": field, "value": value, "candidates": ambiguous},
			"%d %ss%s are named %q; send %s_id instead.", len(ambiguous), what[kind], scope, *name, kind)
	}
	ns, ids := validLists(cands)
	details := map[string]any{"field": field, "value": value, "valid_" + kind + "_names": ns, "valid_" + kind + "_ids": ids}
	if id != nil {
		return -1, errs.WithDetails(code, details, "%s %d is not a %s%s; see details for the accepted ones.", field, *id, what[kind], scope)
	}
	return -1, errs.WithDetails(code, details, "No %s%s is named %q; see details for the accepted ones.", what[kind], scope, *name)
}

// newBooking is an appointment to write, already resolved.
type newBooking struct {
	svc           *service
	pro           *professional
	et            eventType
	client        contact.Client
	created       bool
	start, end    time.Time
	loc           *time.Location
	timezone      string
	notes         string
	source        string // api, waitlist
	confirmed     bool   // the client already said yes (a seat offer accepted by reply)
	keepHoldEntry int64  // a seat offer's entry being booked: its hold is consumed, not released
	heldResource  int64  // the resource that offer held (docs/rooms.md, "Seat offers"), 0 none
	freeOnly      bool   // refuse, rather than warn, when no resource is free (docs/rooms.md)
	series        int64  // the weekly series (docs/series.md): its one confirmation request is BookSeries'
}

// insertBooking writes an appointment and what a booking sets off, in tx:
// the warnings (a held slot among them, whose hold is released), the
// calendar's confirmation request and reminders, the resolution of the
// client's open waiting-list entry for the service, and appointment.booked.
func insertBooking(ctx context.Context, tx *db.Tx, acct account.Account, b newBooking, now time.Time) (Booking, error) {
	// Releasing holds first takes the held entries' row locks, so a
	// patient's "yes" racing with this booking either books before it (and
	// this one overlaps it) or finds its offer released.
	held, err := waitlist.ReleaseHolds(ctx, tx, acct, b.pro.ID, b.start, b.end, b.client.ID, b.keepHoldEntry, now)
	if err != nil {
		return Booking{}, err
	}
	res, noResource, err := assignResource(ctx, tx, acct, b, now)
	if err != nil {
		return Booking{}, err
	}
	warnings, err := bookingWarnings(ctx, tx, acct, b.pro, b.start, b.end, now)
	if err != nil {
		return Booking{}, err
	}
	for _, h := range held {
		warnings = append(warnings, Warning{Code: WarnHeldSlot, EntryID: h.EntryID, SeatExpiresAt: clock.Format(h.ExpiresAt),
			Message: fmt.Sprintf("The slot was held for waiting-list entry %d until %s; the hold is released.", h.EntryID, clock.Format(h.ExpiresAt))})
	}
	warnings = append(warnings, noResource...)
	custom := map[string]any{"booked_by": b.source}
	customText, err := db.JSONText(custom)
	if err != nil {
		return Booking{}, err
	}
	confirmation := "pending"
	if b.confirmed {
		confirmation = "confirmed"
	}
	var id int64
	err = tx.QueryRow(ctx, `INSERT INTO appointments (account_id, client_id, service_id, professional_id, event_type_id,
		start_at, end_at, timezone, status, source, confirmation_status, notes, custom_fields, created_at, updated_at, resource_id)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'booked', ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		acct.ID, b.client.ID, b.svc.ID, b.pro.ID, b.et.ID, db.Micros(b.start), db.Micros(b.end), b.timezone, b.source, confirmation,
		b.notes, customText, db.Micros(now), db.Micros(now), resourceID(res)).Scan(&id)
	if err != nil {
		return Booking{}, fmt.Errorf("insert appointment: %w", err)
	}
	// What a dashboard booking sets off, in the same transaction: the
	// calendar's confirmation request and reminders (booking rule 3), and
	// the client's open waiting-list entry for the service is resolved. A
	// patient who just accepted a seat by reply is not asked to confirm it.
	err = jobs.QueueBookingNotifications(ctx, tx, acct, jobs.Booking{AppointmentID: id, ClientID: b.client.ID,
		Recipient: b.client.Phone.E164(), ClientName: greetingName(b.client), ServiceName: b.svc.Name, Professional: b.pro.Name,
		StartAt: b.start, Location: b.loc, SkipConfirmationRequest: b.confirmed || b.series != 0}, now)
	if err != nil {
		return Booking{}, err
	}
	if _, err := waitlist.ResolveBooked(ctx, tx, acct, b.client.ID, b.svc.ID, now); err != nil {
		return Booking{}, err
	}
	booked := map[string]any{
		"appointment_id": id, "client_id": b.client.ID, "client_created": b.created, "service_id": b.svc.ID,
		"calendar_profile_id": b.pro.ID, "event_type_id": b.et.ID, "start_at": clock.Format(b.start), "end_at": clock.Format(b.end),
		"source": b.source, "resource_id": resourceID(res)} // resource_id additive (docs/rooms.md)
	if err := jobs.Emit(ctx, tx, acct, now, jobs.Event{Type: jobs.EventAppointmentBooked, SourceID: id, Data: withSeries(booked, b.series)}); err != nil {
		return Booking{}, err
	}
	return Booking{ClientID: b.client.ID, ClientCreated: b.created, Appointment: Appointment{
		ID: id, StartAt: clock.Format(b.start), EndAt: clock.Format(b.end), Timezone: b.timezone,
		Status: "booked", Source: b.source, ConfirmationStatus: confirmation,
		Client:          b.client.Ref(),
		CalendarProfile: CalendarProfile{CalendarProfileID: b.pro.ID, Name: b.pro.Name},
		Service:         Colored{ID: b.svc.ID, Name: b.svc.Name, Color: b.svc.Color},
		EventType:       Colored{ID: b.et.ID, Name: b.et.Name, Color: b.et.Color},
		CustomFields:    custom, Notes: b.notes, CreatedAt: clock.Format(now),
		Resource: res, Warnings: warnings,
	}}, nil
}

// Seat is a held slot a waiting client accepted.
type Seat struct {
	EntryID, ClientID, ServiceID, ProfessionalID int64
	Start, End                                   time.Time
	// ResourceID is the room or equipment the offer held with the slot
	// (docs/rooms.md, "Seat offers"); the booking keeps it. 0 none.
	ResourceID int64
}

// BookSeat books an accepted seat offer in tx: source waitlist, confirmed
// (the patient just said yes), the entry resolved as booked with
// waitlist.entry_resolved, appointment.booked, and the reminders. The
// service's first active event type is used. ErrSeatGone when the
// professional no longer offers the service.
func BookSeat(ctx context.Context, tx *db.Tx, acct account.Account, seat Seat, now time.Time) (Booking, error) {
	cat, err := loadCatalog(ctx, tx, acct)
	if err != nil {
		return Booking{}, err
	}
	svc := cat.byID[seat.ServiceID]
	if svc == nil || len(svc.Types) == 0 {
		return Booking{}, ErrSeatGone
	}
	var pro *professional
	for _, p := range svc.Pros {
		if p.ID == seat.ProfessionalID {
			pro = p
		}
	}
	if pro == nil {
		return Booking{}, ErrSeatGone
	}
	client, err := contact.Get(ctx, tx, acct, seat.ClientID)
	if err != nil {
		return Booking{}, err
	}
	loc := acct.Location()
	return insertBooking(ctx, tx, acct, newBooking{svc: svc, pro: pro, et: svc.Types[0], client: client,
		start: seat.Start, end: seat.End, loc: loc, timezone: loc.String(), source: "waitlist", confirmed: true, keepHoldEntry: seat.EntryID,
		heldResource: seat.ResourceID}, now)
}

// ErrSeatGone is a seat whose service or professional is no longer bookable.
var ErrSeatGone = errs.New(errs.ValidationError, "the offered slot can no longer be booked")
