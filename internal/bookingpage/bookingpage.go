// Package bookingpage is the patients' own front door (docs/booking-page.md):
// the booking page at /book/{account_slug} — choose a service and a
// professional (or any), pick a free slot a week at a time, give a phone
// and names, type the code sent to the phone, booked — and the manage page
// at /m/{token}, where a patient sees one appointment and confirms,
// declines, cancels or moves it.
//
// It is a door like the dashboard: it renders HTML with html/template and
// holds no SQL and no rule. Every read and write is the function the
// patient API calls (package patients for booking, package manage for a
// manage link), so both doors refuse alike and cause the same effects.
//
// The pages work without JavaScript and without cookies (an <iframe> on
// the clinic's site may not keep any): every step is a link or a plain
// form, every POST answers with a redirect (POST-redirect-GET), the state
// a step carries is sealed into its URL (seal.go), and every form holds a
// signed, expiring, one-time token (formtoken.go) instead of a session's
// CSRF cookie. Files by subject: routes.go (every page and action),
// book*.go (the booking steps), manage*.go (the manage page), forms.go
// (the form decoders), headers.go (embedding and privacy headers),
// i18n.go and render.go with templates/.
package bookingpage

import (
	"context"
	"html/template"
	"log/slog"
	"net/http"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/reqid"
	"github.com/frontdesk/frontdesk/internal/secrets"
)

// Config holds the page's dependencies.
type Config struct {
	DB    *db.DB
	Clock clock.Clock
	Log   *slog.Logger
	// Secrets keys the form tokens and the sealed steps (a key derived from
	// FRONTDESK_SECRET_KEY). Without a server key the process makes one of
	// its own at start: the pages work, but a form opened before a restart
	// (or on another instance) must be sent again.
	Secrets *secrets.Box
}

// Page serves the booking page and the manage page.
type Page struct {
	db    *db.DB
	clock clock.Clock
	log   *slog.Logger
	keys  keys
	used  *usedTokens
	pages map[string]map[string]*template.Template // language → page → template
	mux   *http.ServeMux
}

// New builds the page and its routes.
func New(cfg Config) (*Page, error) {
	if cfg.Clock == nil {
		cfg.Clock = clock.System{}
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	k, err := newKeys(cfg.Secrets)
	if err != nil {
		return nil, err
	}
	p := &Page{db: cfg.DB, clock: cfg.Clock, log: cfg.Log, keys: k, used: newUsedTokens(), mux: http.NewServeMux()}
	if p.pages, err = parseAll(); err != nil {
		return nil, err
	}
	p.routes()
	return p, nil
}

// ServeHTTP implements http.Handler: the privacy headers on every answer,
// a small bound on what a form may send, then the route.
func (p *Page) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	privacyHeaders(w.Header())
	if r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	}
	p.mux.ServeHTTP(w, r)
}

func (p *Page) logger(ctx context.Context) *slog.Logger {
	if id := reqid.From(ctx); id != "" {
		return p.log.With("request_id", id)
	}
	return p.log
}
