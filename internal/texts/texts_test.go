package texts_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/locale"
	"github.com/frontdesk/frontdesk/internal/texts"
)

func TestTexts(t *testing.T) {
	when := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	v := texts.Vars{Name: "Nora", Service: "Limpieza dental", Professional: "Dra. López", When: when, Until: when.Add(-2 * time.Hour)}
	for _, test := range []struct {
		lang, kind string
		want       []string
	}{
		{"es", texts.SeatOffer, []string{"Nora", "Limpieza dental", "Dra. López", "martes 1 de diciembre a las 10:00", "08:00"}},
		{"en", texts.SeatOffer, []string{"Nora", "Tuesday 1 December at 10:00", "08:00", "Reply YES or NO"}},
		{"", texts.ConfirmationRequest, []string{"¿confirmas", "SÍ o NO"}},
		{"EN", texts.OptOut, []string{"START"}},
		{"es", texts.OptOut, []string{"ALTA"}},
	} {
		got := texts.Render(test.lang, test.kind, v)
		for _, w := range test.want {
			if !strings.Contains(got, w) {
				t.Errorf("Render(%q, %s) = %q, missing %q", test.lang, test.kind, got, w)
			}
		}
		if strings.Contains(got, "{") {
			t.Errorf("unfilled placeholder in %q", got)
		}
	}
}

// Every built-in text is in every language's catalogue, with the same
// placeholders.
func TestEveryTextInEveryLanguage(t *testing.T) {
	placeholders := regexp.MustCompile(`\{[a-z]+\}`)
	when := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for _, kind := range texts.Kinds() {
		en := texts.Render("en", kind, texts.Vars{When: when})
		for _, lang := range locale.Languages() {
			if lang == "en" {
				continue
			}
			key := texts.English(kind)
			said, ok := locale.Text(lang, key)
			if !ok {
				t.Errorf("locales/%s.toml lacks the %s text %q", lang, kind, key)
				continue
			}
			a, b := placeholders.FindAllString(key, -1), placeholders.FindAllString(said, -1)
			slices.Sort(a)
			slices.Sort(b)
			if !slices.Equal(a, b) {
				t.Errorf("%s in %s has placeholders %v, the English %v", kind, lang, b, a)
			}
			if texts.Render(lang, kind, texts.Vars{When: when}) == en {
				t.Errorf("%s in %s reads as the English", kind, lang)
			}
		}
	}
}
