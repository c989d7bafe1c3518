// Package ics writes appointments as iCalendar (RFC 5545) files: one
// appointment for a patient's "add to calendar" link, a professional's
// private feed for Google Calendar, Outlook or Apple Calendar. It is a leaf:
// callers turn their own rows into Events. Times are written in UTC, so a
// file needs no VTIMEZONE and every client shows them in its own zone.
package ics

import (
	"io"
	"strconv"
	"time"

	ical "github.com/arran4/golang-ical"
)

// ProductID names Frontdesk in every file it writes.
const ProductID = "-//Frontdesk//Frontdesk//EN"

// Event is one appointment as a calendar shows it.
type Event struct {
	// UID is stable for the appointment across downloads, so a client
	// updates its copy instead of adding a second one.
	UID         string
	Start, End  time.Time
	Summary     string
	Description string
	Location    string
	URL         string
	// Cancelled marks the event CANCELLED (a client that already holds it
	// removes or strikes it); otherwise it is CONFIRMED.
	Cancelled bool
	// Updated is the appointment's last change (LAST-MODIFIED) and
	// Sequence its revision: a rescheduled appointment has a higher one.
	Updated  time.Time
	Sequence int
}

// Calendar is a file: a name (shown by clients that subscribe to a feed)
// and its events.
type Calendar struct {
	Name string
	// Refresh is how often a subscribed client should read the feed again
	// (zero: no hint).
	Refresh time.Duration
	Events  []Event
}

// Write writes c as an iCalendar file; stamp is DTSTAMP (when the file was
// made).
func Write(w io.Writer, c Calendar, stamp time.Time) error {
	cal := ical.NewCalendarFor("Frontdesk")
	cal.SetProductId(ProductID)
	cal.SetMethod(ical.MethodPublish)
	if c.Name != "" {
		cal.SetName(c.Name)
		cal.SetXWRCalName(c.Name)
	}
	if c.Refresh > 0 {
		cal.SetRefreshInterval(isoDuration(c.Refresh))
	}
	for _, e := range c.Events {
		ev := cal.AddEvent(e.UID)
		ev.SetDtStampTime(stamp.UTC())
		ev.SetStartAt(e.Start.UTC())
		ev.SetEndAt(e.End.UTC())
		ev.SetSummary(e.Summary)
		if e.Description != "" {
			ev.SetDescription(e.Description)
		}
		if e.Location != "" {
			ev.SetLocation(e.Location)
		}
		if e.URL != "" {
			ev.SetURL(e.URL)
		}
		status := ical.ObjectStatusConfirmed
		if e.Cancelled {
			status = ical.ObjectStatusCancelled
		}
		ev.SetStatus(status)
		if !e.Updated.IsZero() {
			ev.SetLastModifiedAt(e.Updated.UTC())
		}
		ev.SetSequence(e.Sequence)
	}
	// RFC 5545 lines end in CRLF; the library writes LF unless told.
	return cal.SerializeTo(w, ical.WithNewLineWindows)
}

// isoDuration writes d as an RFC 5545 duration in whole minutes (PT90M).
func isoDuration(d time.Duration) string {
	m := int64(d / time.Minute)
	if m < 1 {
		m = 1
	}
	return "PT" + strconv.FormatInt(m, 10) + "M"
}

// AppointmentUID names an appointment in every file that holds it (a
// patient's add-to-calendar file, a professional's feed): stable across
// reads, unique across accounts and servers' accounts by the slug.
func AppointmentUID(accountSlug string, appointmentID int64) string {
	return "appointment-" + strconv.FormatInt(appointmentID, 10) + "-" + accountSlug + "@frontdesk"
}
