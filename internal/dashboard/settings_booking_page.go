package dashboard

// Settings › Booking page: whether patients book online at
// /book/{account_slug}, with a code to their phone or without, which
// services they may book and which sites may embed the page
// (docs/patient-api.md, "Turning it on"). The settings are read, checked
// and stored by the patients area (the same rules as the workspace file's
// booking_page); every save that changes something is one audit entry.

import (
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/patients"
)

// bookingPageService is one active service as a checkbox.
type bookingPageService struct {
	Key, Name string
	Ticked    bool
}

// bookingPageView is the booking page settings page. On a refused save it
// holds what was sent, so nothing typed is lost.
type bookingPageView struct {
	Enabled, VerifyPhone bool
	Services             []bookingPageService
	Origins              string // one per line
	MaxOrigins           int
	// Address is the page's public address; Snippet the iframe that embeds it.
	Address, Snippet string
	// Problems are the lines of a refused save, each with its reason.
	Problems []string
}

func (bookingPageView) isPage() {}

// bookingPagePath is the booking page of an account, below the public URL.
func bookingPagePath(slug string) string { return "/book/" + url.PathEscape(slug) }

// embedSnippet is the HTML a clinic pastes into its site to embed the page.
func embedSnippet(address, title string) string {
	return `<iframe src="` + template.HTMLEscapeString(address+"?embed=1") + `" title="` + template.HTMLEscapeString(title) +
		`" style="width:100%;min-height:720px;border:0" loading="lazy"></iframe>`
}

// bookingPage handles "GET /app/settings/booking-page".
func (d *Dashboard) bookingPage(w http.ResponseWriter, r *http.Request, s *session) error {
	set, err := patients.LoadSettings(r.Context(), d.db, s.Account)
	if err != nil {
		return err
	}
	v := bookingPageView{Enabled: set.Enabled, VerifyPhone: set.VerifyPhone, Origins: strings.Join(set.EmbedOrigins, "\n")}
	return d.renderBookingPage(w, r, s, http.StatusOK, v, set.Services)
}

// renderBookingPage lays out v with the account's active services, those
// in ticked ticked.
func (d *Dashboard) renderBookingPage(w http.ResponseWriter, r *http.Request, s *session, status int, v bookingPageView, ticked []string) error {
	svcs, err := calendar.CatalogServices(r.Context(), d.db, s.Account)
	if err != nil {
		return err
	}
	for _, svc := range svcs {
		if svc.Active {
			v.Services = append(v.Services, bookingPageService{Key: svc.FileKey, Name: svc.Name, Ticked: slices.Contains(ticked, svc.FileKey)})
		}
	}
	v.MaxOrigins = patients.MaxEmbedOrigins
	v.Address = d.publicBase(r) + bookingPagePath(s.Account.Slug)
	v.Snippet = embedSnippet(v.Address, s.Translate("Book an appointment at %s", s.Account.Name))
	d.render(w, r, s, status, "settings_booking_page", "Booking page", "settings-booking-page", v)
	return nil
}

// readOrigins reads the origins box, one per line (blank lines skipped),
// each through the same check as the workspace file's; every line that is
// not an origin is reported, with its number.
func readOrigins(s *session, text string) ([]string, []string) {
	var origins, problems []string
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		origin, err := patients.CheckOrigin(line)
		var e *errs.Error
		switch {
		case errors.As(err, &e):
			problems = append(problems, s.Translate("Line %d: %s", i+1, s.Err(e)))
		case err != nil:
			problems = append(problems, s.Translate("Line %d: %q is not an origin.", i+1, line))
		default:
			origins = append(origins, origin)
		}
	}
	if len(origins) > patients.MaxEmbedOrigins {
		problems = append(problems, s.Translate("At most %d sites may embed the page; there are %d.", patients.MaxEmbedOrigins, len(origins)))
	}
	return origins, problems
}

// saveBookingPage handles "POST /app/settings/booking-page". A form with a
// line that is not an origin is shown again with every such line, and
// nothing is saved.
func (d *Dashboard) saveBookingPage(w http.ResponseWriter, r *http.Request, s *session) error {
	ctx := r.Context()
	text := strings.ReplaceAll(r.PostForm.Get("embed_origins"), "\r", "")
	set := patients.Settings{Enabled: formBool(r, "enabled"), VerifyPhone: formBool(r, "verify_phone"), Services: r.PostForm["services"]}
	origins, problems := readOrigins(s, text)
	if len(problems) > 0 {
		v := bookingPageView{Enabled: set.Enabled, VerifyPhone: set.VerifyPhone, Origins: text, Problems: problems}
		return d.renderBookingPage(w, r, s, http.StatusUnprocessableEntity, v, set.Services)
	}
	set.EmbedOrigins = origins
	changed, err := d.change(ctx, s, "updated", "booking_page", func(tx *db.Tx) (string, []string, error) {
		before, err := patients.LoadSettings(ctx, tx, s.Account)
		if err != nil {
			return "", nil, err
		}
		if err := patients.SaveSettings(ctx, tx, s.Account, set); err != nil {
			return "", nil, err
		}
		after, err := patients.LoadSettings(ctx, tx, s.Account)
		return idString(s.Account.ID), bookingPageChanges(before, after), err
	})
	if err != nil {
		return err
	}
	d.redirect(w, r, Prefix+"settings/booking-page", "ok", savedMessage(s, changed))
	return nil
}

// bookingPageChanges says what a save changed, for the audit log, in the
// workspace file's words: "enabled: false → true", "embed_origins added
// https://clinic.example", "services: all → cleaning, physio".
func bookingPageChanges(before, after patients.Settings) []string {
	var out []string
	yesNo := map[bool]string{true: "true", false: "false"}
	if before.Enabled != after.Enabled {
		out = append(out, "enabled: "+yesNo[before.Enabled]+" → "+yesNo[after.Enabled])
	}
	if before.VerifyPhone != after.VerifyPhone {
		out = append(out, "verify_phone: "+yesNo[before.VerifyPhone]+" → "+yesNo[after.VerifyPhone])
	}
	if added := missingFrom(after.EmbedOrigins, before.EmbedOrigins); len(added) > 0 {
		out = append(out, "embed_origins added "+strings.Join(added, ", "))
	}
	if removed := missingFrom(before.EmbedOrigins, after.EmbedOrigins); len(removed) > 0 {
		out = append(out, "embed_origins removed "+strings.Join(removed, ", "))
	}
	keys := func(list []string) string {
		if len(list) == 0 {
			return "all"
		}
		return strings.Join(list, ", ")
	}
	if !sameSet(before.Services, after.Services) {
		out = append(out, "services: "+keys(before.Services)+" → "+keys(after.Services))
	}
	return out
}

// missingFrom lists what of list is not in other, in list's order.
func missingFrom(list, other []string) []string {
	var out []string
	for _, v := range list {
		if !slices.Contains(other, v) {
			out = append(out, v)
		}
	}
	return out
}

func sameSet(a, b []string) bool {
	return len(missingFrom(a, b)) == 0 && len(missingFrom(b, a)) == 0
}
