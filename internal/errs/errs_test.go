package errs_test

import (
	"testing"

	"github.com/frontdesk/frontdesk/internal/errs"
)

func TestLocalize(t *testing.T) {
	spanish := map[string]string{
		"Service %d not found.":           "No se encontró el servicio %d.",
		"%s %s":                           "%s %s",
		"is required for provider %s":     "es obligatorio para el proveedor %s",
		"Give the service a name.":        "Da un nombre al servicio.",
		"a fixed sentence without a key.": "una frase fija sin clave.",
	}
	say := func(key string) string {
		if s, ok := spanish[key]; ok {
			return s
		}
		return key
	}
	for _, tc := range []struct {
		err              *errs.Error
		english, spanish string
	}{
		{errs.New(errs.NotFound, "Service %d not found.", 7), "Service 7 not found.", "No se encontró el servicio 7."},
		{errs.New(errs.ValidationError, "%s %s", "credentials.host", errs.Say("is required for provider %s", "smtp")),
			"credentials.host is required for provider smtp", "credentials.host es obligatorio para el proveedor smtp"},
		{errs.WithDetails(errs.ValidationError, nil, "%s", errs.Say("Give the service a name.")), "Give the service a name.", "Da un nombre al servicio."},
		{&errs.Error{Code: errs.ValidationError, Message: "a fixed sentence without a key."}, "a fixed sentence without a key.", "una frase fija sin clave."},
		{errs.New(errs.NotFound, "Unknown %q.", "x"), `Unknown "x".`, `Unknown "x".`},
	} {
		if tc.err.Message != tc.english {
			t.Errorf("Message = %q, want %q", tc.err.Message, tc.english)
		}
		if got := tc.err.Localize(say); got != tc.spanish {
			t.Errorf("Localize = %q, want %q", got, tc.spanish)
		}
	}
}
