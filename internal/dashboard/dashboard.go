// Package dashboard is where a clinic runs its day, served under /app/ by
// the same binary: Today (the day's grid per professional, booking from a
// free slot), the calendar, clients, the inbox, pipeline boards, waiting
// lists, activity, and the owners' settings (catalogue, calendar feeds,
// notifications, channels, webhooks, team and invitations, API keys, audit
// log), in Spanish and English.
//
// Pages are rendered on the server with html/template; every action is a
// plain HTML form that works without JavaScript, and a few lines of
// hand-written JavaScript (static/app.js) only add conveniences: a copy
// button, dragging a card onto a stage column, confirmations. Templates and
// assets are embedded, so the binary serves the dashboard offline.
//
// The dashboard holds no SQL and no rule of its own: every read and write
// is a call to the area package that owns it (calendar, contact, waitlist,
// pipeline, chat, relay, channels, jobs, account, audit), the same function
// the API calls where the API does the same thing, and every call takes the
// signed-in user's account, so another account's object is a 404. Files by
// subject: routes.go (every page and action on one screen), today*.go,
// clients.go, inbox.go, settings_<page>.go (one per settings page;
// settings.go and settings_index.go hold what they share), calendar_page.go,
// waitlists.go, activity.go and pipelines.go (boards), render.go and
// templates/ (partial_*.html for what pages share), i18n.go and
// the catalogue of package locale (the texts in each language).
package dashboard

import (
	"embed"
	"encoding/base64"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/outbound"
	"github.com/frontdesk/frontdesk/internal/secrets"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Prefix is where the dashboard is mounted.
const Prefix = "/app/"

// Config holds the dashboard's dependencies.
type Config struct {
	DB    *db.DB
	Clock clock.Clock
	Log   *slog.Logger
	// IdleTimeout ends a session not used for this long (default 12 h).
	IdleTimeout time.Duration
	// MaxAge ends a session this long after sign-in, however busy (default 7 days).
	MaxAge time.Duration
	// SignInLimit sign-in attempts for one e-mail from one address within
	// SignInWindow (a fixed window from the first attempt), with no success
	// between, stop further attempts until the window ends (defaults 5 and
	// 15 min). Attempts are counted before the password is checked.
	SignInLimit  int
	SignInWindow time.Duration
	// SignInAddressLimit failed sign-ins from one address within
	// SignInWindow, whatever the e-mails, stop further attempts from it
	// (default 20): the limit on spraying many e-mails.
	SignInAddressLimit int
	// PublicURL is the base URL providers call back (FRONTDESK_PUBLIC_URL),
	// shown on the channels page, and the base of calendar feed links;
	// empty: the request's own scheme and host.
	PublicURL string
	// Secrets seals the webhook secrets the settings pages store (nil: no
	// FRONTDESK_SECRET_KEY, stored as given, like the workspace file's).
	Secrets *secrets.Box
	// Providers sends the channels page's test messages (nil: defaults
	// with Targets).
	Providers *channels.Providers
	// Targets is the outbound policy channel addresses and webhook URLs
	// saved on the settings pages must pass (docs/api-notes.md).
	Targets outbound.Policy
}

// Dashboard serves /app/.
type Dashboard struct {
	db    *db.DB
	clock clock.Clock
	log   *slog.Logger
	idle  time.Duration
	max   time.Duration
	// signInLimit attempts per signInWindow, per e-mail and address;
	// signInAddressLimit failed attempts per signInWindow, per address.
	signInLimit        int
	signInAddressLimit int
	signInWindow       time.Duration
	publicURL          string
	secrets            *secrets.Box
	providers          *channels.Providers
	targets            outbound.Policy
	pages              map[string]map[string]*template.Template // language → page → template
	mux                *http.ServeMux
}

// New builds the dashboard handler.
func New(cfg Config) (*Dashboard, error) {
	if cfg.Clock == nil {
		cfg.Clock = clock.System{}
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = 12 * time.Hour
	}
	if cfg.MaxAge <= 0 {
		cfg.MaxAge = 7 * 24 * time.Hour
	}
	if cfg.Providers == nil {
		cfg.Providers = &channels.Providers{Targets: cfg.Targets}
	}
	if cfg.SignInLimit <= 0 {
		cfg.SignInLimit = 5
	}
	if cfg.SignInAddressLimit <= 0 {
		cfg.SignInAddressLimit = 20
	}
	if cfg.SignInWindow <= 0 {
		cfg.SignInWindow = 15 * time.Minute
	}
	d := &Dashboard{db: cfg.DB, clock: cfg.Clock, log: cfg.Log, idle: cfg.IdleTimeout, max: cfg.MaxAge,
		signInLimit: cfg.SignInLimit, signInAddressLimit: cfg.SignInAddressLimit, signInWindow: cfg.SignInWindow, publicURL: cfg.PublicURL, secrets: cfg.Secrets, providers: cfg.Providers, targets: cfg.Targets, mux: http.NewServeMux()}
	if err := d.parseTemplates(); err != nil {
		return nil, err
	}
	d.routes()
	return d, nil
}

// ServeHTTP implements http.Handler.
func (d *Dashboard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	// Pages hold account data and one-time secrets: never cache them, never
	// frame them, and allow only our own scripts and styles. Inline styles
	// stay allowed: templates colour stages and services with style
	// attributes (html/template escapes their values); there is no inline
	// script, so script-src is 'self' alone.
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")
	d.mux.ServeHTTP(w, r)
}

// handler is a dashboard page or action of a signed-in user.
type handler func(w http.ResponseWriter, r *http.Request, s *session) error

// page registers a GET page: without a valid session it sends the browser
// to sign in; an error renders an error page.
func (d *Dashboard) page(pattern string, h handler) {
	d.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		s, ok := d.signedIn(w, r)
		if !ok || !d.decodeForm(w, r, s, 64<<10) {
			return
		}
		if err := h(w, r, s); err != nil {
			d.fail(w, r, s, err)
		}
	})
}

// action registers a POST form handler: it needs a session and the
// session's CSRF token. A refused business rule goes back to the page the
// form came from with the reason; a missing object is a 404.
func (d *Dashboard) action(pattern string, h handler) {
	d.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		s, ok := d.signedIn(w, r)
		if !ok {
			return
		}
		if !d.decodeForm(w, r, s, 1<<20) {
			return
		}
		if !s.csrfOK(r.PostForm.Get("csrf_token")) {
			d.renderError(w, r, s, http.StatusForbidden, langOf(r, s).Translate("This form has expired or did not come from this dashboard. Reload the page and try again."))
			return
		}
		if err := h(w, r, s); err != nil {
			var e *errs.Error
			if errors.As(err, &e) && e.Code != errs.NotFound {
				d.redirect(w, r, backTo(r, Prefix), "error", langOf(r, s).Err(e))
				return
			}
			d.fail(w, r, s, err)
		}
	})
}

// ownerPage and ownerAction register a settings page or action: like page
// and action, and staff get 403 (the settings are the owners').
func (d *Dashboard) ownerPage(pattern string, h handler) { d.page(pattern, ownerOnly(d, h)) }

func (d *Dashboard) ownerAction(pattern string, h handler) { d.action(pattern, ownerOnly(d, h)) }

func ownerOnly(d *Dashboard, h handler) handler {
	return func(w http.ResponseWriter, r *http.Request, s *session) error {
		if !s.IsOwner() {
			d.renderError(w, r, s, http.StatusForbidden, s.Translate("Only the account's owners can change its settings."))
			return nil
		}
		return h(w, r, s)
	}
}

// backTo is where an action returns: the form's "back" field when it is a
// dashboard path of this host, else the referring dashboard page, else def
// (see localPath for what is refused).
func backTo(r *http.Request, def string) string {
	for _, cand := range []string{r.PostForm.Get("back"), r.Referer()} {
		if p := localPath(cand, r.Host); p != "" {
			return p
		}
	}
	return def
}

// fail renders an error: NOT_FOUND as 404, other coded errors as 400 with
// their message, anything else as a logged 500 that shows no internals.
func (d *Dashboard) fail(w http.ResponseWriter, r *http.Request, s *session, err error) {
	var e *errs.Error
	switch {
	case errors.As(err, &e) && e.Code == errs.NotFound:
		d.renderError(w, r, s, http.StatusNotFound, langOf(r, s).Translate("Not found. It may have been removed, or it belongs to another workspace."))
	case errors.As(err, &e):
		d.renderError(w, r, s, http.StatusBadRequest, langOf(r, s).Err(e))
	case db.IsNoRows(err):
		d.renderError(w, r, s, http.StatusNotFound, langOf(r, s).Translate("Not found. It may have been removed, or it belongs to another workspace."))
	default:
		d.logger(r.Context()).Error("dashboard", "path", r.URL.Path, "err", err)
		d.renderError(w, r, s, http.StatusInternalServerError, langOf(r, s).Translate("Something went wrong on our side. Try again in a moment."))
	}
}

func (d *Dashboard) notFoundPage(w http.ResponseWriter, r *http.Request) {
	s, _ := d.currentSession(r)
	d.renderError(w, r, s, http.StatusNotFound, langOf(r, s).Translate("There is no such page."))
}

// errorView is the error page: the status and what went wrong.
type errorView struct {
	Status  int
	Message string
}

func (errorView) isPage() {}

func (d *Dashboard) renderError(w http.ResponseWriter, r *http.Request, s *session, status int, msg string) {
	d.render(w, r, s, status, "error", "Error", "", errorView{Status: status, Message: msg})
}

// redirect answers an action with 303 to path, leaving a one-time message
// for the next page (a short-lived cookie, read and cleared on render).
func (d *Dashboard) redirect(w http.ResponseWriter, r *http.Request, path, kind, msg string) {
	if msg != "" {
		http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: base64.RawURLEncoding.EncodeToString([]byte(kind + "\x00" + msg)),
			Path: Prefix, MaxAge: 60, HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: isTLS(r)})
	}
	http.Redirect(w, r, path, http.StatusSeeOther)
}

const flashCookie = "frontdesk_flash"

// pathID reads an integer path value; a malformed one is a 404, like an
// unknown id.
func pathID(r *http.Request, name string) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil || id <= 0 {
		return 0, errs.New(errs.NotFound, "not found")
	}
	return id, nil
}

// formID reads an integer form value; a missing or malformed one is a
// validation error naming the field.
func formID(r *http.Request, name, label string) (int64, error) {
	id, err := strconv.ParseInt(strings.TrimSpace(r.PostForm.Get(name)), 10, 64)
	if err != nil || id <= 0 {
		return 0, errs.New(errs.ValidationError, "Choose a %s.", label)
	}
	return id, nil
}

// accountOf is the account a session is scoped to.
func accountOf(s *session) account.Account { return s.Account }

// Source written on what the dashboard changes.
const Source = "dashboard"

func notFound(what string, id any) error {
	return errs.New(errs.NotFound, "%s %v not found.", what, id)
}
