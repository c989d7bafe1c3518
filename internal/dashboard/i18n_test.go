package dashboard

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/locale"
)

// The texts the sources hand to the translator: {{t "…"}} in templates,
// s.Translate("…") in handlers, and page titles given to render.
var (
	templateText = regexp.MustCompile(`\{\{-?\s*t\s+("(?:[^"\\]|\\.)*")`)
	handlerText  = regexp.MustCompile(`\.Translate\(("(?:[^"\\]|\\.)*")`)
	titleText    = regexp.MustCompile(`d\.render\(w, r, s, [^,]+, "[a-z_]+", ("(?:[^"\\]|\\.)*")`)
	// {{tc "context" "text"}} and s.TC("context", "text"): the Spanish is
	// under "context|text".
	contextText = regexp.MustCompile(`(?:\{\{-?\s*tc\s+|\.TC\()("[a-z ]+"),?\s*("(?:[^"\\]|\\.)*")`)
)

// TestEveryTextHasSpanish reads the templates and handlers: every text
// they translate has a Spanish entry, so a Spanish clinic never meets an
// English word the dashboard could have translated.
func TestEveryTextHasSpanish(t *testing.T) {
	files, _ := filepath.Glob("templates/*.html")
	gofiles, _ := filepath.Glob("*.go")
	missing := map[string][]string{}
	seen := 0
	for _, f := range append(files, gofiles...) {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range contextText.FindAllSubmatch(src, -1) {
			ctx, _ := strconv.Unquote(string(m[1]))
			text, err := strconv.Unquote(string(m[2]))
			if err != nil {
				t.Fatalf("%s: %s: %v", f, m[2], err)
			}
			seen++
			if _, ok := catalogue()["es"][ctx+"|"+text]; !ok {
				missing[ctx+"|"+text] = append(missing[ctx+"|"+text], f)
			}
		}
		for _, re := range []*regexp.Regexp{templateText, handlerText, titleText} {
			for _, m := range re.FindAllSubmatch(src, -1) {
				text, err := strconv.Unquote(string(m[1]))
				if err != nil {
					t.Fatalf("%s: %s: %v", f, m[1], err)
				}
				seen++
				if _, ok := catalogue()["es"][text]; !ok {
					missing[text] = append(missing[text], f)
				}
			}
		}
	}
	if seen < 10 {
		t.Fatalf("found only %d texts: the patterns no longer match the sources", seen)
	}
	var list []string
	for text, where := range missing {
		list = append(list, strconv.Quote(text)+" ("+where[0]+")")
	}
	sort.Strings(list)
	for _, l := range list {
		t.Errorf("no Spanish for %s", l)
	}
}

func TestTranslateAndDates(t *testing.T) {
	at := time.Date(2026, 11, 27, 16, 15, 0, 0, time.UTC)
	for _, test := range []struct {
		lang  string
		style locale.DateStyle
		want  string
	}{
		{"es", locale.ShortTime, "vie 27 nov, 16:15"},
		{"en", locale.ShortTime, "Fri 27 Nov, 16:15"},
		{"es", locale.Long, "viernes, 27 de noviembre de 2026"},
		{"en", locale.Long, "Friday, 27 November 2026"},
		{"es", locale.DayOfMonth, "27 nov"},
	} {
		if got := sayDate(test.lang, at, test.style); got != test.want {
			t.Errorf("%s %q = %q, want %q", test.lang, test.style, got, test.want)
		}
	}
	if got := translate("es", "Sign out"); got != "Cerrar sesión" {
		t.Errorf("es Sign out = %q", got)
	}
	if got := translate("en", "Sign out"); got != "Sign out" {
		t.Errorf("en Sign out = %q", got)
	}
	if got := translate("es", "no such text %d", 3); got != "no such text 3" {
		t.Errorf("fallback = %q", got)
	}
	for header, want := range map[string]string{"": "es", "en-GB,en;q=0.9": "en", "fr-FR, es;q=0.8": "es", "de": "es", "EN": "en"} {
		r, _ := http.NewRequest("GET", "/", nil)
		r.Header.Set("Accept-Language", header)
		if got := requestLanguage(r); got != want {
			t.Errorf("Accept-Language %q → %s, want %s", header, got, want)
		}
	}
}

// TestCatalogue: every language file loads (TOML refuses a key written
// twice, so no text has two translations); the refusals areas give the
// dashboard, which the source scan cannot see, are in Spanish; keys end
// up in every language's map under their own language; and a third
// language is one more file.
func TestCatalogue(t *testing.T) {
	for _, lang := range Languages {
		if _, ok := catalogue()[lang]; !ok {
			t.Errorf("no catalogue for %s", lang)
		}
	}
	for _, msg := range []string{contact.MsgContactRequired, contact.MsgEmailTaken, contact.MsgInvalidEmail, contact.MsgInvalidPhone,
		contact.MsgNameRequired, contact.MsgPhoneTaken, contact.MsgTooLong} {
		if _, ok := catalogue()["es"][msg]; !ok {
			t.Errorf("no Spanish for the area's message %q", msg)
		}
	}
	twice := fstest.MapFS{"locales/es.toml": {Data: []byte("\"Sign in\" = \"a\"\n\"Sign in\" = \"b\"\n")}}
	if _, err := locale.Load(twice); err == nil {
		t.Error("a key written twice loaded")
	}
	third := fstest.MapFS{"locales/es.toml": {Data: []byte(`"Sign in" = "Iniciar sesión"`)}, "locales/fr.toml": {Data: []byte(`"Sign in" = "Se connecter"`)}}
	c, err := locale.Load(third)
	if err != nil || c["fr"]["Sign in"] != "Se connecter" || c["es"]["Sign in"] != "Iniciar sesión" {
		t.Fatalf("a third language: %v %v", c, err)
	}
}
