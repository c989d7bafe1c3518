package dashboard

import (
	"github.com/frontdesk/frontdesk/internal/errs"
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
