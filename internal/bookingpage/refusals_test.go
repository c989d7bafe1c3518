package bookingpage_test

import (
	"net/http"
	"net/url"
	"strconv"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// TestRefusalsOnTheForm: what the areas refuse is said on the form in the
// page's language, with the patient API's status, never a 500 — a wrong
// code, a slot taken meanwhile, too many codes for one phone — and so are
// the form's own problems and a forged or stale form token.
func TestRefusalsOnTheForm(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		cleaning := strconv.FormatInt(h.ids["demo"].Services["cleaning"], 10)
		lopez := strconv.FormatInt(h.ids["demo"].Professionals["lopez"], 10)
		slot := h.get("/book/demo/slots?service="+cleaning+"&professional="+lopez).must(t, 200).link(t, "/book/demo/details?")
		details := h.get(slot).must(t, 200)
		action, token := details.form(t, "/book/demo/details")

		t.Run("missing fields", func(t *testing.T) {
			h.post(action, url.Values{"form_token": {token}, "phone": {" "}, "first_name": {"Ana"}}).must(t, http.StatusBadRequest).
				has(t, "Revisa los campos marcados abajo.", "Escribe tu número de teléfono.", "Escribe tus apellidos.", `aria-invalid="true"`)
		})
		t.Run("a phone nobody can reach", func(t *testing.T) {
			h.post(action, patientForm(token, "12", "Ana")).must(t, http.StatusBadRequest).has(t, "role=\"alert\"")
		})
		t.Run("a forged form token", func(t *testing.T) {
			h.post(action, patientForm("x"+token[1:], "+34611000111", "Ana")).must(t, http.StatusBadRequest).
				has(t, "Este formulario estuvo abierto demasiado tiempo o ya se envió.")
		})
		t.Run("no form token", func(t *testing.T) {
			h.post(action, patientForm("", "+34611000111", "Ana")).must(t, http.StatusBadRequest)
		})
		t.Run("a form token of another page", func(t *testing.T) {
			otherService := strconv.FormatInt(h.ids["other"].Services["cleaning"], 10)
			otherSlot := h.get("/book/other/slots?service="+otherService).must(t, 200).link(t, "/book/other/details?")
			_, otherToken := h.get(otherSlot).form(t, "/book/other/details")
			h.post(action, patientForm(otherToken, "+34611000111", "Ana")).must(t, http.StatusBadRequest)
		})

		// A code for the slot, then the slot is taken by someone else.
		codeStep := h.post(action, patientForm(token, "+34611000222", "Marta")).location(t)
		codePage := h.get(codeStep).must(t, 200)
		codeAction, codeToken := codePage.form(t, "/book/demo/code?")
		t.Run("a code that is not six digits", func(t *testing.T) {
			h.post(codeAction, url.Values{"form_token": {codeToken}, "code": {"12ab"}}).must(t, http.StatusBadRequest).
				has(t, "Escribe el código de 6 cifras que te enviamos.")
		})
		t.Run("a wrong code", func(t *testing.T) {
			wrong := "000000"
			if h.lastCode("+34611000222") == wrong {
				wrong = "111111"
			}
			h.post(codeAction, url.Values{"form_token": {codeToken}, "code": {wrong}}).must(t, http.StatusBadRequest).
				has(t, "Ese código no es correcto, ha caducado o ya se usó.")
		})
		t.Run("the slot taken meanwhile", func(t *testing.T) {
			_, otherToken := h.get(slot).form(t, "/book/demo/details")
			step := h.post(action, patientForm(otherToken, "+34611000333", "Rosa")).location(t)
			a, tok := h.get(step).form(t, "/book/demo/code?")
			h.post(a, url.Values{"form_token": {tok}, "code": {h.lastCode("+34611000333")}}).location(t)
			h.post(codeAction, url.Values{"form_token": {codeToken}, "code": {h.lastCode("+34611000222")}}).must(t, http.StatusBadRequest).
				has(t, "Lo sentimos, esa hora ya no está libre. Elige otra hora.", "Elegir otra hora")
		})
		t.Run("too many codes for one phone", func(t *testing.T) {
			var last page
			for i := 0; i < 4; i++ {
				_, tok := h.get(slot).form(t, "/book/demo/details")
				last = h.post(action, patientForm(tok, "+34611000444", "Iván"))
			}
			last.must(t, http.StatusTooManyRequests).has(t, "Demasiados intentos. Espera unos minutos y vuelve a intentarlo.")
		})
		t.Run("a sealed step of another page", func(t *testing.T) {
			h.get("/book/other"+codeStep[len("/book/demo"):]).must(t, http.StatusBadRequest)
		})
		t.Run("a forged sealed step", func(t *testing.T) {
			h.get("/book/demo/code?d=AAAA"+codeStep[len("/book/demo/code?d=AAAA"):]).must(t, http.StatusBadRequest).
				has(t, "Este paso ha caducado. Elige tu hora de nuevo.")
			h.get("/book/demo/booked?b=nonsense").must(t, http.StatusNotFound)
		})
		t.Run("a slot that is not one", func(t *testing.T) {
			h.get("/book/demo/details?service="+cleaning+"&start=yesterday").must(t, http.StatusBadRequest).has(t, "Elige una de las horas de la lista.")
			h.get("/book/demo/slots?service=999999").must(t, http.StatusBadRequest).has(t, "Elige uno de los servicios.")
		})
	})
}
