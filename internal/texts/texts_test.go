package texts_test

import (
	"strings"
	"testing"
	"time"

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
