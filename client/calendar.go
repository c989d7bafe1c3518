package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// IDName is an {id, name} reference.
type IDName struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// Service is a bookable service: exactly the ids and names booking accepts.
type Service struct {
	ID                     int64    `json:"id"`
	Name                   string   `json:"name"`
	DefaultDurationMinutes int      `json:"default_duration_minutes"`
	Professionals          []IDName `json:"professionals"` // ids are calendar_profile_ids
	EventTypes             []IDName `json:"event_types"`
}

// ListServices lists the bookable services.
func (c *Client) ListServices(ctx context.Context, opts ...CallOption) ([]Service, error) {
	var out struct {
		Data []Service `json:"data"`
	}
	err := c.do(ctx, request{method: http.MethodGet, path: "/calendar/services"}, &out, opts)
	return out.Data, err
}

// AvailabilityParams are the query of GetAvailability; zero values take the
// server's defaults (14 days from today in the account's zone, every
// service).
type AvailabilityParams struct {
	Days       int     // 1..90
	StartDate  string  // YYYY-MM-DD
	Timezone   string  // IANA zone
	ServiceIDs []int64 // only these services
}

// Availability is bookable capacity per service over a window of days.
type Availability struct {
	StartDate string            `json:"start_date"`
	EndDate   string            `json:"end_date"` // inclusive
	Timezone  string            `json:"timezone"`
	Days      int               `json:"days"`
	Services  []ServiceCapacity `json:"services"`
}

// ServiceCapacity is one service's capacity: an upper bound, summed over
// its active professionals.
type ServiceCapacity struct {
	ServiceID       int64  `json:"service_id"`
	ServiceName     string `json:"service_name"`
	DurationMinutes int    `json:"duration_minutes"`
	Capacity        int    `json:"capacity"`
	Professionals   []struct {
		ID       int64  `json:"id"`
		Name     string `json:"name"`
		Capacity int    `json:"capacity"`
	} `json:"professionals"`
	ByDay []struct {
		Date     string `json:"date"`
		Capacity int    `json:"capacity"`
	} `json:"by_day"`
}

// GetAvailability reads bookable capacity per service.
func (c *Client) GetAvailability(ctx context.Context, p AvailabilityParams, opts ...CallOption) (*Availability, error) {
	q := query(url.Values{})
	q.int("days", int64(p.Days))
	q.str("start_date", p.StartDate)
	q.str("timezone", p.Timezone)
	q.ints("service_id", p.ServiceIDs)
	var out struct {
		Data Availability `json:"data"`
	}
	if err := c.do(ctx, request{method: http.MethodGet, path: "/calendar/availability", query: url.Values(q)}, &out, opts); err != nil {
		return nil, err
	}
	return &out.Data, nil
}

// FreeSlotsParams are the query of GetFreeSlots; ServiceID is required,
// zero values of the rest take the server's defaults (7 days from today in
// the account's zone, every active professional of the service, 100 slots).
type FreeSlotsParams struct {
	ServiceID       int64
	ProfessionalIDs []int64 // only these professionals
	StartDate       string  // YYYY-MM-DD
	Days            int     // 1..31
	Timezone        string  // IANA zone of the days and of the wall-clock times
	Limit           int     // 1..500
}

// FreeSlots are the bookable start times of one service over a window of
// days: exactly the slots availability's capacity counts.
type FreeSlots struct {
	ServiceID       int64      `json:"service_id"`
	ServiceName     string     `json:"service_name"`
	DurationMinutes int        `json:"duration_minutes"`
	Timezone        string     `json:"timezone"`
	StartDate       string     `json:"start_date"`
	EndDate         string     `json:"end_date"` // inclusive
	Slots           []FreeSlot `json:"slots"`    // by start, then professional id
	HasMore         bool       `json:"has_more"` // the window holds more than Limit
}

// FreeSlot is one bookable slot. StartAt and EndAt are wall clock in the
// query's Timezone, the form BookingRequest takes with that Timezone.
type FreeSlot struct {
	StartAt      string    `json:"start_at"`
	EndAt        string    `json:"end_at"`
	StartAtUTC   time.Time `json:"start_at_utc"`
	EndAtUTC     time.Time `json:"end_at_utc"`
	Professional IDName    `json:"professional"`
}

// GetFreeSlots lists the free slots of a service.
func (c *Client) GetFreeSlots(ctx context.Context, p FreeSlotsParams, opts ...CallOption) (*FreeSlots, error) {
	q := query(url.Values{})
	url.Values(q).Set("service_id", strconv.FormatInt(p.ServiceID, 10))
	q.ints("professional_id", p.ProfessionalIDs)
	q.str("start_date", p.StartDate)
	q.int("days", int64(p.Days))
	q.str("timezone", p.Timezone)
	q.int("limit", int64(p.Limit))
	var out struct {
		Data FreeSlots `json:"data"`
	}
	if err := c.do(ctx, request{method: http.MethodGet, path: "/calendar/availability/slots", query: url.Values(q)}, &out, opts); err != nil {
		return nil, err
	}
	return &out.Data, nil
}

// BookingClient is the customer of a booking: matched by phone, created
// when the phone is new (then FirstName or LastName is needed). For a known
// phone the names and e-mail are ignored.
type BookingClient struct {
	FirstName string `json:"first_name,omitempty"`
	LastName  string `json:"last_name,omitempty"`
	Phone     string `json:"phone"`
	Email     string `json:"email,omitempty"`
}

// BookingRequest books exactly what is asked: name each of service,
// professional and event type by id or by name (the id wins when both are
// set). StartAt and EndAt are wall-clock times in Timezone
// ("2026-12-01T10:00:00"), or carry an offset that then wins; use
// WallClock to format a time.Time.
type BookingRequest struct {
	Client           BookingClient `json:"client"`
	ServiceID        int64         `json:"service_id,omitempty"`
	ServiceName      string        `json:"service_name,omitempty"`
	ProfessionalID   int64         `json:"professional_id,omitempty"`
	ProfessionalName string        `json:"professional_name,omitempty"`
	EventTypeID      int64         `json:"event_type_id,omitempty"`
	EventTypeName    string        `json:"event_type_name,omitempty"`
	StartAt          string        `json:"start_at"`
	EndAt            string        `json:"end_at"`
	Timezone         string        `json:"timezone"`
	Notes            string        `json:"notes,omitempty"`
	// Recurrence, when set, books a weekly series instead of one
	// appointment (additive): the answer's Series lists every occurrence.
	Recurrence *Recurrence `json:"recurrence,omitempty"`
}

// Recurrence repeats a booking weekly (a course of sessions): every
// Interval weeks (1 to 4), either Count times (2 to 52, the first included)
// or until the date Until ("YYYY-MM-DD", inclusive, in the booking's
// Timezone, at most 366 days after StartAt's date). Set exactly one of Count
// and Until. Every occurrence starts at the first one's wall-clock time in
// Timezone (it keeps 10:00 across daylight-saving changes) and lasts as
// long; each is booked as a single booking, with its own warnings, and all
// of them or none are written. The server refuses a bad recurrence with a
// 422 at ["body", "recurrence", …].
type Recurrence struct {
	Frequency string `json:"frequency"` // "weekly", the only frequency
	Interval  int    `json:"interval"`
	Count     int    `json:"count,omitempty"`
	Until     string `json:"until,omitempty"`
}

// Weekly is the Recurrence of count sessions, one every interval weeks.
func Weekly(interval, count int) *Recurrence {
	return &Recurrence{Frequency: "weekly", Interval: interval, Count: count}
}

// WallClock formats t's wall-clock reading (in t's own location) the way
// booking expects it without an offset: "2006-01-02T15:04:05".
func WallClock(t time.Time) string { return t.Format("2006-01-02T15:04:05") }

// Colored is an {id, name, color} reference.
type Colored struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Color string `json:"color"`
}

// Appointment is a booked appointment.
type Appointment struct {
	ID                 int64     `json:"id"`
	StartAt            time.Time `json:"start_at"`
	EndAt              time.Time `json:"end_at"`
	Timezone           string    `json:"timezone"` // additive
	Status             string    `json:"status"`   // "booked"
	Source             string    `json:"source"`   // "api"
	ConfirmationStatus string    `json:"confirmation_status"`
	Client             struct {
		ID    int64  `json:"id"`
		Name  string `json:"name"`
		Phone string `json:"phone"`
	} `json:"client"`
	CalendarProfile struct {
		CalendarProfileID int64  `json:"calendar_profile_id"`
		Name              string `json:"name"`
	} `json:"calendar_profile"`
	Service      Colored          `json:"service"`
	EventType    Colored          `json:"event_type"`
	CustomFields map[string]any   `json:"custom_fields"`
	Notes        string           `json:"notes"`    // additive
	Warnings     []BookingWarning `json:"warnings"` // additive
	CreatedAt    time.Time        `json:"created_at"`
}

// BookingWarning says what is unusual about a booking (it never refuses
// one): in_the_past, outside_working_hours, professional_on_time_off (with
// From, To), overlaps_existing_appointment (with AppointmentID, StartAt,
// EndAt) or breaks_booking_rule (with Rule: min_notice, max_advance, buffer
// or max_future_per_client).
type BookingWarning struct {
	Code          string     `json:"code"`
	Message       string     `json:"message"`
	AppointmentID int64      `json:"appointment_id,omitempty"`
	StartAt       *time.Time `json:"start_at,omitempty"`
	EndAt         *time.Time `json:"end_at,omitempty"`
	From          *time.Time `json:"from,omitempty"`
	To            *time.Time `json:"to,omitempty"`
	Rule          string     `json:"rule,omitempty"`
}

// Booking is the answer of Book.
type Booking struct {
	Appointment   Appointment `json:"data"` // with a Recurrence: the first occurrence
	ClientID      int64       `json:"client_id"`
	ClientCreated bool        `json:"client_created"`
	// Series is set when the request had a Recurrence (additive; the API
	// sends it as data.series beside the first occurrence).
	Series *Series `json:"-"`
}

// Series is a booked weekly series: its id and every occurrence, in order
// (the first is also Booking.Appointment).
type Series struct {
	ID          int64              `json:"id"`
	Occurrences []SeriesOccurrence `json:"occurrences"`
}

// SeriesOccurrence is one appointment of a series, with its own warnings.
type SeriesOccurrence struct {
	ID       int64            `json:"id"`
	StartAt  time.Time        `json:"start_at"`
	EndAt    time.Time        `json:"end_at"`
	Warnings []BookingWarning `json:"warnings"`
}

// UnmarshalJSON reads the booking answer, taking data.series into Series.
func (b *Booking) UnmarshalJSON(data []byte) error {
	type plain Booking // without this method
	var series struct {
		Data struct {
			Series *Series `json:"series"`
		} `json:"data"`
	}
	if err := json.Unmarshal(data, (*plain)(b)); err != nil {
		return err
	}
	if err := json.Unmarshal(data, &series); err != nil {
		return err
	}
	b.Series = series.Data.Series
	return nil
}

// Book books an appointment, or a weekly series of them when
// req.Recurrence is set. Availability never refuses it. A 500 is
// retried (the contract allows it); add WithIdempotencyKey to make a retry
// after a lost connection safe as well.
func (c *Client) Book(ctx context.Context, req BookingRequest, opts ...CallOption) (*Booking, error) {
	var out Booking
	if err := c.do(ctx, request{method: http.MethodPost, path: "/calendar/events", body: req, retry500: true}, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}
