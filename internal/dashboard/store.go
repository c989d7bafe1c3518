package dashboard

import (
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/pipeline"
	"github.com/frontdesk/frontdesk/internal/waitlist"
)

// The dashboard holds no SQL: what it reads and writes is done by the area
// packages (contact, pipeline, waitlist, calendar, chat), each taking the
// account, so an id of another account behaves exactly like an unknown one
// (NOT_FOUND). This file names those use cases for the handlers and
// templates.

// Source written on what the dashboard changes.
const Source = "dashboard"

func notFound(what string, id any) error {
	return errs.New(errs.NotFound, "%s %v not found.", what, id)
}

type (
	CardEvent    = pipeline.CardEvent
	Card         = pipeline.Card
	UserRef      = pipeline.UserRef
	NodeInput    = pipeline.NodeInput
	Tag          = contact.Tag
	ClientUpdate = contact.ClientUpdate
	Disposition  = chat.DispositionRef
)

var (
	CardTimeline    = pipeline.CardTimeline
	Users           = pipeline.Users
	CreateAPINode   = pipeline.CreateAPINode
	SetNodeActive   = pipeline.SetNodeActive
	SearchClients   = contact.SearchClients
	GetClient       = contact.GetClient
	ClientTags      = contact.ClientTags
	UpdateClient    = contact.UpdateClient
	AddClientTag    = contact.AddClientTag
	RemoveClientTag = contact.RemoveClientTag
	SnoozeEntry     = waitlist.SnoozeEntry
	SetEntryFlag    = waitlist.SetEntryFlag
	UpdateWaitlist  = waitlist.UpdateWaitlist
	Dispositions    = chat.Dispositions
)

type (
	Appointment       = calendar.AppointmentView
	AppointmentFilter = calendar.AppointmentFilter
	Professional      = calendar.ProfessionalRef
)

var (
	ConfirmationStatuses  = calendar.ConfirmationStatuses
	ListAppointments      = calendar.ListAppointments
	GetAppointment        = calendar.GetAppointment
	RescheduleAppointment = calendar.RescheduleAppointment
	CancelAppointment     = calendar.CancelAppointment
	Professionals         = calendar.ProfessionalRefs
)
