// Package httpapi is Frontdesk's thin HTTP layer: it authenticates, decodes
// and validates requests into the contract's 422 items, calls the area
// packages, and encodes their results and errors into the contract's
// envelopes. It holds no business rules and writes no SQL.
package httpapi

import (
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/managelink"
	"github.com/frontdesk/frontdesk/internal/outbound"
	"github.com/frontdesk/frontdesk/internal/password"
	"github.com/frontdesk/frontdesk/internal/pipeline"
	"github.com/frontdesk/frontdesk/internal/relay"
	"github.com/frontdesk/frontdesk/internal/secrets"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

const publicPrefix = "/api/v2/public"

// Config holds every dependency of the server.
type Config struct {
	DB         *db.DB
	Clock      clock.Clock
	Log        *slog.Logger
	AdminToken string // admin routes are off when empty
	Registry   *prometheus.Registry
	// BatchWait is how long an ingest batch waits for another batch of the
	// same input node before BATCH_IN_PROGRESS (default 30 s).
	BatchWait time.Duration
	// Dashboard serves the web dashboard under /app/ (nil: off).
	Dashboard http.Handler
	// BookingPage serves the patients' pages under /book/ and /m/
	// (internal/bookingpage; nil: off).
	BookingPage http.Handler
	// RequestTimeout bounds every request, so a database that stops
	// answering turns into a clean 500 instead of a hung connection
	// (default 2 min).
	RequestTimeout time.Duration
	// RateLimit tunes the rate limits (docs/contract.md, Rate limits;
	// ratelimit.go); the zero value is the contract's.
	RateLimit RateLimit
	// Secrets seals webhook secrets of workspace files applied over the
	// admin route (nil: stored as they are).
	Secrets *secrets.Box
	// MetricsToken, when set, guards GET /metrics: it then needs
	// "Authorization: Bearer <MetricsToken>" (else 401).
	MetricsToken string
	// Hooks processes the message providers' callbacks under /hooks/
	// (nil: every callback is 404).
	Hooks *relay.Hooks
	// PublicURL is the base the providers call (FRONTDESK_PUBLIC_URL); the
	// Twilio signature covers it.
	PublicURL string
	// Getenv reads the {env: NAME} credentials of workspace files applied
	// over the admin route (nil: os.Getenv).
	Getenv func(string) string
	// Targets is the outbound policy workspace files applied over the admin
	// route must pass (docs/api-notes.md, "Outbound targets").
	Targets outbound.Policy
}

// Server serves the public API, the admin routes and the operational
// endpoints.
type Server struct {
	db         *db.DB
	clock      clock.Clock
	log        *slog.Logger
	adminToken string
	metricsKey string // guards GET /metrics when set (Config.MetricsToken)
	auth       *account.Authenticator
	workspace  *workspace.Applier
	metrics    *metrics
	ingester   *pipeline.Ingester
	timeout    time.Duration
	mux        *http.ServeMux
	handler    http.Handler
	dashboard  http.Handler
	ready      readiness // the /readyz write probe (ops.go)
	limits     *limits
	hooks      *relay.Hooks
	publicURL  string
	links      managelink.Config // how manage links are made (docs/manage-links.md)
	pages      http.Handler      // the patients' pages (Config.BookingPage)
}

// NewServer builds the server and its routes.
func NewServer(cfg Config) *Server {
	if cfg.Clock == nil {
		cfg.Clock = clock.System{}
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Registry == nil {
		cfg.Registry = prometheus.NewRegistry()
	}
	s := &Server{
		db:         cfg.DB,
		clock:      cfg.Clock,
		log:        cfg.Log,
		adminToken: cfg.AdminToken,
		metricsKey: cfg.MetricsToken,
		auth:       &account.Authenticator{DB: cfg.DB, Clock: cfg.Clock},
		workspace:  &workspace.Applier{DB: cfg.DB, Now: cfg.Clock.Now, HashPassword: password.Hash, Secrets: cfg.Secrets, Getenv: getenvOr(cfg.Getenv), Targets: cfg.Targets},
		metrics:    newMetrics(cfg.Registry, cfg.DB),
		ingester:   &pipeline.Ingester{DB: cfg.DB, Wait: cfg.BatchWait},
		timeout:    cfg.RequestTimeout,
		mux:        http.NewServeMux(),
		dashboard:  cfg.Dashboard,
		pages:      cfg.BookingPage,
		limits:     newLimits(cfg.RateLimit, cfg.Clock),
		hooks:      cfg.Hooks,
		publicURL:  cfg.PublicURL,
		links:      managelink.Config{PublicURL: cfg.PublicURL, Secrets: cfg.Secrets},
	}
	s.routes()
	s.handler = s.observe(s.authenticate(http.HandlerFunc(s.route)))
	return s
}

// ServeHTTP implements http.Handler. Every request carries how manage
// links are made, so a booking through any door under it (the API, the
// dashboard, MCP, a provider's callback) ends its messages with the link.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.handler.ServeHTTP(w, r.WithContext(managelink.WithConfig(r.Context(), s.links)))
}

// handlerFunc is a handler that may fail; handle turns its error into the
// contract's envelope.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

func (s *Server) handle(pattern string, h handlerFunc) {
	public := strings.Contains(pattern, publicPrefix+"/")
	// The OpenAPI document takes no parameters and needs no key.
	checkQuery := public && !strings.HasSuffix(pattern, publicPrefix+"/openapi.json")
	fn := func(w http.ResponseWriter, r *http.Request) {
		if checkQuery {
			if err := checkQueryString(r); err != nil {
				writeError(w, r, err)
				return
			}
		}
		if err := h(w, r); err != nil {
			writeError(w, r, err)
		}
	}
	if public {
		fn = s.idempotent(pattern, fn)
	}
	s.mux.Handle(pattern, http.HandlerFunc(fn))
}

func getenvOr(f func(string) string) func(string) string {
	if f != nil {
		return f
	}
	return os.Getenv
}
