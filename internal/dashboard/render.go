package dashboard

// Pages: the flash message carried across a redirect, the view every
// template gets, rendering into a buffer first (no half-written pages), and
// the templates parsed once per language.

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/locale"
)

// Flash is a one-time message shown at the top of a page.
type Flash struct {
	Kind    string // "ok", "warn" (done, with something to know) or "error"
	Message string
}

func takeFlash(w http.ResponseWriter, r *http.Request) *Flash {
	c, err := r.Cookie(flashCookie)
	if err != nil {
		return nil
	}
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Path: Prefix, MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode})
	raw, err := base64.RawURLEncoding.DecodeString(c.Value)
	if err != nil {
		return nil
	}
	kind, msg, ok := strings.Cut(string(raw), "\x00")
	if !ok || (kind != "ok" && kind != "warn" && kind != "error") || len(msg) > 1000 {
		return nil
	}
	return &Flash{Kind: kind, Message: msg}
}

// view is what every template receives.
type view struct {
	Lang    string // "es" or "en"
	Title   string // said in Lang
	Nav     string
	Session *session
	CSRF    string
	Flash   *Flash
	Now     time.Time
	Loc     *time.Location
	Data    pageData
	// Unread is how many open conversations have a client message the team
	// has not read (the Inbox entry of the navigation shows it).
	Unread int
}

// InSettings reports whether the page is one of the settings pages (the
// navigation marks Settings as the current section, and the settings menu
// marks the page).
func (v view) InSettings() bool {
	return strings.HasPrefix(v.Nav, "settings") || v.Nav == "keys" || v.Nav == "channels"
}

// pageData is what a page's template reads as .Data: a struct type of its
// own per page (its "view", declared beside the page's handler), never a
// map, which a template could read a misspelt key of without failing.
// isPage marks the views; views_test.go checks no render passes nil.
type pageData interface{ isPage() }

// render shows page, titled title (a catalogue text, said in the page's
// language).
func (d *Dashboard) render(w http.ResponseWriter, r *http.Request, s *session, status int, page, title, nav string, data pageData) {
	d.renderTitled(w, r, s, status, page, translate(string(langOf(r, s)), title), nav, data)
}

// renderTitled is render with a title already said: a name (a client's,
// a pipeline's), or a sentence the handler translated.
func (d *Dashboard) renderTitled(w http.ResponseWriter, r *http.Request, s *session, status int, page, title, nav string, data pageData) {
	v := view{Lang: requestLanguage(r), Title: title, Nav: nav, Session: s, Flash: takeFlash(w, r), Now: d.clock.Now(), Loc: time.UTC, Data: data}
	if s != nil {
		v.CSRF = s.CSRF
		v.Loc = s.Account.Location()
		v.Lang = s.Lang
		if n, err := chat.UnreadCount(r.Context(), d.db, s.Account); err == nil {
			v.Unread = n
		}
	}
	t, ok := d.pages[v.Lang][page]
	if !ok {
		panic("dashboard: no template " + page)
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", v); err != nil {
		d.logger(r.Context()).Error("dashboard: render", "page", page, "err", err)
		http.Error(w, "Something went wrong on our side.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

func (d *Dashboard) parseTemplates() error {
	d.pages = map[string]map[string]*template.Template{}
	for _, lang := range Languages {
		pages, err := parseTemplates(lang)
		if err != nil {
			return err
		}
		d.pages[lang] = pages
	}
	return nil
}

// parseTemplates parses every page with the functions of one language: t
// translates, when and date format in its names.
func parseTemplates(lang string) (map[string]*template.Template, error) {
	funcs := template.FuncMap{
		// path is a link inside the dashboard: {{path "clients/"}} is
		// Prefix + "clients/", so no page writes the prefix itself.
		"path": func(p string) string { return Prefix + strings.TrimPrefix(p, "/") },
		"t":    func(text string, args ...any) string { return translate(lang, text, args...) },
		// tc: a text whose Spanish depends on what it describes.
		"tc": func(context, text string, args ...any) string { return translateIn(lang, context, text, args...) },
		// date says an instant in the account's zone in a named style
		// (locale.DateStyle: "long", "short-time", ...); isodate is the
		// day a link or a form carries (2006-01-02).
		"date": func(loc *time.Location, t time.Time, style string) (string, error) {
			if !locale.IsDateStyle(style) {
				return "", fmt.Errorf("date: %q is not a date style", style)
			}
			return locale.FormatDate(lang, t.In(loc), locale.DateStyle(style)), nil
		},
		"isodate": func(loc *time.Location, t time.Time) string { return t.In(loc).Format(time.DateOnly) },
		// when is an instant in the account's zone, "—" for none. Areas
		// hand instants over as time.Time, never as text to parse back.
		"when": func(loc *time.Location, t any) (string, error) {
			var v time.Time
			switch t := t.(type) {
			case time.Time:
				v = t
			case *time.Time:
				if t != nil {
					v = *t
				}
			default:
				return "", fmt.Errorf("when: %T is not a time.Time", t)
			}
			if v.IsZero() {
				return "—", nil
			}
			return locale.FormatDate(lang, v.In(loc), locale.Stamp), nil
		},
		// value says a stored value (a status, a source, a sentiment) in
		// the page's language: the catalogue's "value|<value>".
		"value": func(v string) string { return valueIn(lang, v) },
		"money": func(v *float64) string {
			if v == nil {
				return "—"
			}
			return strconv.FormatFloat(*v, 'f', -1, 64)
		},
		"deref": func(p any) any {
			switch v := p.(type) {
			case *string:
				if v == nil {
					return ""
				}
				return *v
			case *int64:
				if v == nil {
					return ""
				}
				return *v
			case *int:
				if v == nil {
					return 0
				}
				return *v
			}
			return p
		},
		"eq64":  func(a, b int64) bool { return a == b },
		"split": strings.Fields,
		"priority": func(p int) string {
			switch p {
			case 0:
				return "urgent"
			case 1:
				return "high"
			case 3:
				return "low"
			}
			return "normal"
		},
	}
	// Partials (templates/*_nav.html and templates/partial_*.html:
	// {{define "…"}} blocks a page includes) are parsed into the base with
	// the layout, and are no page.
	base, err := template.New("base").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/*_nav.html", "templates/partial_*.html")
	if err != nil {
		return nil, err
	}
	entries, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	pages := map[string]*template.Template{}
	for _, e := range entries {
		name := strings.TrimSuffix(strings.TrimPrefix(e, "templates/"), ".html")
		if name == "layout" || strings.HasSuffix(name, "_nav") || strings.HasPrefix(name, "partial_") {
			continue
		}
		t, err := template.Must(base.Clone()).ParseFS(templateFS, e)
		if err != nil {
			return nil, fmt.Errorf("template %s: %w", name, err)
		}
		pages[name] = t
	}
	return pages, nil
}
