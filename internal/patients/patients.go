// Package patients is the patient API's area (docs/patient-api.md): an
// account's public booking page settings, the page a patient sees (its
// services and their professionals), free slots in the account's zone,
// one-time verification codes sent to the patient's phone, and the
// booking a patient makes, held to the clinic's rules (refused where the
// public API would book and warn). It holds no HTTP: the JSON door
// (internal/httpapi) and the HTML booking page both call it.
package patients

import (
	"context"
	"fmt"
	"slices"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/texts"
)

// Source is the appointment source of a patient's own booking.
const Source = "booking_page"

// Page is an account's published booking page: what a patient may book.
type Page struct {
	Account account.Account
	// Language is the account's language (es, en): the page's and the
	// patient's messages'.
	Language string
	Settings Settings
	// Services are the page's services (Settings.Services, or every active
	// service), ordered by id; a service with no active event type cannot
	// be booked and is left out.
	Services []Service
}

// Service is a bookable service as the page shows it.
type Service struct {
	ID              int64          `json:"id"`
	Name            string         `json:"name"`
	DurationMinutes int            `json:"duration_minutes"`
	Professionals   []calendar.Ref `json:"professionals"`
	// AllowSeries says whether a patient may book the service as a weekly
	// course: its booking rule allow_series (docs/series.md).
	AllowSeries bool `json:"allow_series"`
	// eventTypeID is the event type a patient's booking takes: the
	// service's first active one.
	eventTypeID int64
}

// Service returns the page's service with id.
func (p Page) Service(id int64) (Service, bool) {
	i := slices.IndexFunc(p.Services, func(s Service) bool { return s.ID == id })
	if i < 0 {
		return Service{}, false
	}
	return p.Services[i], true
}

// errNoPage answers an unknown slug and a page that is off alike, so a
// stranger cannot tell which accounts exist.
func errNoPage(slug string) error {
	return errs.New(errs.NotFound, "No booking page is published at %q.", slug)
}

// Open loads the published booking page of the account with slug: NOT_FOUND
// for an unknown slug or a page that is not enabled. Four queries.
func Open(ctx context.Context, store *db.DB, slug string) (Page, error) {
	acct, err := account.BySlug(ctx, store, slug)
	if errs.Is(err, errs.NotFound) {
		return Page{}, errNoPage(slug)
	}
	if err != nil {
		return Page{}, err
	}
	st, lang, err := loadSettings(ctx, store, acct)
	if err != nil {
		return Page{}, err
	}
	if !st.Enabled {
		return Page{}, errNoPage(slug)
	}
	services, err := pageServices(ctx, store, acct, st.Services)
	if err != nil {
		return Page{}, err
	}
	return Page{Account: acct, Language: texts.Lang(lang), Settings: st, Services: services}, nil
}

// pageServices lists the active services whose keys are in keys (every
// active one when keys is empty) with their active professionals; a service
// without an active event type is left out.
func pageServices(ctx context.Context, q db.Querier, acct account.Account, keys []string) ([]Service, error) {
	all, err := calendar.ListServices(ctx, q, acct)
	if err != nil {
		return nil, err
	}
	rules, err := calendar.RulesByService(ctx, q, acct)
	if err != nil {
		return nil, err
	}
	var wanted map[int64]bool
	if len(keys) > 0 {
		ids, err := serviceIDs(ctx, q, acct, keys)
		if err != nil {
			return nil, err
		}
		wanted = map[int64]bool{}
		for _, id := range ids {
			wanted[id] = true
		}
	}
	out := []Service{}
	for _, s := range all {
		if wanted != nil && !wanted[s.ID] || len(s.EventTypes) == 0 {
			continue
		}
		out = append(out, Service{ID: s.ID, Name: s.Name, DurationMinutes: s.DefaultDurationMinutes,
			Professionals: s.Professionals, AllowSeries: rules(s.ID).AllowSeries, eventTypeID: s.EventTypes[0].ID})
	}
	return out, nil
}

// serviceIDs maps service keys to ids; unknown keys are skipped.
func serviceIDs(ctx context.Context, q db.Querier, acct account.Account, keys []string) ([]int64, error) {
	rows, err := q.Query(ctx, `SELECT id, file_key FROM services WHERE account_id = ?`, acct.ID)
	if err != nil {
		return nil, fmt.Errorf("service keys: %w", err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var (
			id  int64
			key string
		)
		if err := rows.Scan(&id, &key); err != nil {
			return nil, err
		}
		if slices.Contains(keys, key) {
			out = append(out, id)
		}
	}
	return out, rows.Err()
}

// serviceNotFound refuses a service that is not on the page, listing the
// page's services (never the account's others).
func serviceNotFound(p Page, id int64) error {
	names := make([]string, len(p.Services))
	ids := make([]int64, len(p.Services))
	for i, s := range p.Services {
		names[i], ids[i] = s.Name, s.ID
	}
	return errs.WithDetails(errs.ServiceNotFound, map[string]any{"field": "service_id", "value": id,
		"valid_service_names": names, "valid_service_ids": ids},
		"service_id %d is not a service of this booking page; see details for the accepted ones.", id)
}
