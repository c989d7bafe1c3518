package channels_test

import (
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/channels"
)

func TestSegments(t *testing.T) {
	for _, test := range []struct {
		name, body string
		enc        string
		want       int
	}{
		{"empty", "", "GSM-7", 1},
		{"160 GSM-7 in one", strings.Repeat("a", 160), "GSM-7", 1},
		{"161 GSM-7 in two", strings.Repeat("a", 161), "GSM-7", 2},
		{"306 GSM-7 in two", strings.Repeat("a", 306), "GSM-7", 2},
		{"307 GSM-7 in three", strings.Repeat("a", 307), "GSM-7", 3},
		{"ñ, é and ¿ are GSM-7", "Hola Begoña, ¿vienes el miércoles? é", "GSM-7", 1},
		{"an í makes the body UCS-2", "Hola Begoña, ¿confirmas tu cita? Sí o no", "UCS-2", 1},
		{"extension chars count two", strings.Repeat("€", 80), "GSM-7", 1},
		{"extension chars over the edge", strings.Repeat("€", 81), "GSM-7", 2},
		{"70 UCS-2 in one", strings.Repeat("í", 70), "UCS-2", 1},
		{"71 UCS-2 in two", strings.Repeat("í", 71), "UCS-2", 2},
		{"134 UCS-2 in two", strings.Repeat("í", 134), "UCS-2", 2},
		{"135 UCS-2 in three", strings.Repeat("í", 135), "UCS-2", 3},
		{"emoji is two UTF-16 units", strings.Repeat("😀", 35), "UCS-2", 1},
		{"36 emoji over the edge", strings.Repeat("😀", 36), "UCS-2", 2},
	} {
		t.Run(test.name, func(t *testing.T) {
			if got := channels.Encoding(test.body); got != test.enc {
				t.Errorf("Encoding = %s, want %s", got, test.enc)
			}
			if got := channels.Segments(test.body); got != test.want {
				t.Errorf("Segments = %d, want %d", got, test.want)
			}
		})
	}
}

func TestClassify(t *testing.T) {
	for _, test := range []struct {
		in   string
		want channels.Intent
	}{
		{"sí", channels.IntentYes}, {"SI", channels.IntentYes}, {" Sí! ", channels.IntentYes}, {"¡sí!", channels.IntentYes},
		{"Confirmo.", channels.IntentYes}, {"ok", channels.IntentYes}, {"1", channels.IntentYes}, {"YES", channels.IntentYes},
		{"y", channels.IntentYes}, {"confirm", channels.IntentYes},
		{"no", channels.IntentNo}, {"No.", channels.IntentNo}, {"cancelar", channels.IntentNo}, {"Cancelo", channels.IntentNo},
		{"2", channels.IntentNo}, {"cancel", channels.IntentNo},
		{"STOP", channels.IntentStop}, {"baja", channels.IntentStop}, {"Unsubscribe", channels.IntentStop},
		{"cancelar suscripción", channels.IntentStop}, {"CANCELAR  SUSCRIPCION", channels.IntentStop},
		{"START", channels.IntentStart}, {"alta", channels.IntentStart},
		{"sí, gracias", channels.IntentNone}, {"no sé", channels.IntentNone}, {"hola", channels.IntentNone},
		{"", channels.IntentNone}, {"12", channels.IntentNone}, {strings.Repeat("si ", 40), channels.IntentNone},
	} {
		if got := channels.Classify(test.in); got != test.want {
			t.Errorf("Classify(%q) = %v, want %v", test.in, got, test.want)
		}
	}
}
