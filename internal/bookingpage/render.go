package bookingpage

// Pages: the view every template gets, the links that keep the page's
// language and embedding, rendering into a buffer first (no half-written
// page), and the templates parsed once per language.

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/locale"
)

//go:embed templates/*.html templates/page.css
var templateFS embed.FS

// view is what every template receives.
type view struct {
	Lang  lang
	Title string // an English text, translated by the layout
	// Clinic is the account's name, shown in the page's header (not in
	// an embedded page, whose host page says it).
	Clinic string
	Carry  carry
	Notice *notice
	Data   pageData
	// Switch is the same page in the other language.
	Switch languageLink
}

// languageLink is a link to a page in a language, named in that language.
type languageLink struct {
	Href, Code, Name string
}

// notice is a message at the top of a page: "ok" after an action, "error"
// for a refusal.
type notice struct {
	Kind string
	Text string
}

// pageData is what a page's template reads as .Data: one struct type per
// page, never a map a template could misspell a key of.
type pageData interface{ isPage() }

// carry is what every link and form of a page keeps from the request: the
// language a link asked for and whether the page is embedded.
type carry struct {
	Lang  string // "" when the account's language applies
	Embed bool
}

// carried reads what r carries.
func carried(r *http.Request) carry {
	c := carry{Embed: r.URL.Query().Get("embed") == "1" || (r.Method == http.MethodPost && r.PostFormValue("embed") == "1")}
	if l, ok := askedLanguage(r); ok {
		c.Lang = string(l)
	}
	return c
}

// Link is path with the query pairs (name, value, …) and what the page
// carries.
func (c carry) Link(path string, pairs ...string) string {
	q := url.Values{}
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] != "" {
			q.Set(pairs[i], pairs[i+1])
		}
	}
	if c.Lang != "" {
		q.Set("lang", c.Lang)
	}
	if c.Embed {
		q.Set("embed", "1")
	}
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}

// otherLanguage links the page r shows (for a POST, the page its form
// came from is not known: the step's own address) in the language that is
// not l.
func otherLanguage(r *http.Request, l lang) languageLink {
	other := languageLink{Code: "es", Name: "Español"}
	if l == "es" {
		other = languageLink{Code: "en", Name: "English"}
	}
	q := r.URL.Query()
	q.Set("lang", other.Code)
	if r.Method == http.MethodPost && r.PostFormValue("embed") == "1" {
		q.Set("embed", "1")
	}
	other.Href = r.URL.Path + "?" + q.Encode()
	return other
}

func (p *Page) render(w http.ResponseWriter, r *http.Request, l lang, status int, page, title, clinic string, n *notice, data pageData) {
	v := view{Lang: l, Title: title, Clinic: clinic, Carry: carried(r), Notice: n, Data: data, Switch: otherLanguage(r, l)}
	t, ok := p.pages[string(l)][page]
	if !ok {
		panic("bookingpage: no template " + page)
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", v); err != nil {
		p.logger(r.Context()).Error("bookingpage: render", "page", page, "err", err)
		http.Error(w, l.Translate("Something went wrong on our side. Please try again."), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// redirect answers a POST with 303 See Other (POST-redirect-GET).
func redirect(w http.ResponseWriter, r *http.Request, to string) {
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// parseAll parses every page in every language.
func parseAll() (map[string]map[string]*template.Template, error) {
	css, err := fs.ReadFile(templateFS, "templates/page.css")
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]*template.Template{}
	for _, l := range languages {
		pages, err := parseTemplates(lang(l), template.CSS(css))
		if err != nil {
			return nil, err
		}
		out[l] = pages
	}
	return out, nil
}

// parseTemplates parses every page with the functions of one language: t
// translates, date formats an instant in the account's zone with l's day
// and month names.
func parseTemplates(l lang, css template.CSS) (map[string]*template.Template, error) {
	funcs := template.FuncMap{
		"t":   func(text string, args ...any) string { return translate(l, text, args...) },
		"css": func() template.CSS { return css },
		// date says an instant in a named style (locale.DateStyle);
		// isodate is the day a link carries.
		"date": func(loc *time.Location, t time.Time, style string) (string, error) {
			if !locale.IsDateStyle(style) {
				return "", fmt.Errorf("date: %q is not a date style", style)
			}
			return locale.FormatDate(string(l), t.In(loc), locale.DateStyle(style)), nil
		},
		"isodate": func(loc *time.Location, t time.Time) string { return t.In(loc).Format(time.DateOnly) },
		// moment is a day and time as a sentence says it; day, a day.
		"moment": func(loc *time.Location, t time.Time) string { return l.moment(t.In(loc)) },
		"day":    func(loc *time.Location, t time.Time) string { return l.day(t.In(loc)) },
	}
	base, err := template.New("base").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/partial_*.html")
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
		if name == "layout" || strings.HasPrefix(name, "partial_") {
			continue
		}
		t, err := template.Must(base.Clone()).ParseFS(templateFS, e)
		if err != nil {
			return nil, err
		}
		pages[name] = t
	}
	return pages, nil
}
