package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// Owners keep the quick replies (added, refused when empty or too long,
// removed, each change audited); staff get 403 there but use them in a
// patient's thread, where choosing one fills the reply box without
// JavaScript. Another account's reply is unknown.
func TestQuickRepliesSettings(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		h.applyChannels()
		const path = "/app/settings/quick-replies"
		ana := h.signedIn("ana@acme.test", "ana-password")
		ana.get(path).must(t, http.StatusOK).contains(t, "No quick replies yet.", `aria-current="page">Quick replies`)
		ana.get("/app/settings").contains(t, `href="`+path+`"`)

		text := "Le confirmamos la cita. ¡Hasta pronto!"
		ana.follow(ana.post(path, url.Values{"body": {"  " + text + "  "}})).contains(t, "Quick reply added.", text)
		for _, test := range []struct{ name, body, want string }{
			{"empty", "   ", "Write the quick reply&#39;s text."},
			{"too long", strings.Repeat("a", chat.MaxQuickReplyLength+1), "at most 500 characters"},
		} {
			t.Run(test.name, func(t *testing.T) {
				ana.get(path)
				ana.follow(ana.post(path, url.Values{"body": {test.body}})).contains(t, `class="flash error"`, test.want)
			})
		}
		if n := h.count("quick_replies", "account_id = ?", h.account("acme").ID); n != 1 {
			t.Fatalf("quick replies stored: %d", n)
		}
		var id string
		if err := store.QueryRow(context.Background(), `SELECT uuid FROM quick_replies WHERE body = ?`, text).Scan(&id); err != nil {
			t.Fatal(err)
		}
		if n := h.count("audit_log", "object_type = 'quick_reply' AND action = 'created' AND object_id = ?", id); n != 1 {
			t.Fatalf("audit entries: %d", n)
		}

		// Staff: no settings page, but the replies in the thread.
		sara := h.signedIn("sara@acme.test", "sara-password")
		sara.get(path).must(t, http.StatusForbidden)
		sara.post(path, url.Values{"body": {"Hola"}}).must(t, http.StatusForbidden)
		sara.post(path+"/"+id+"/remove", nil).must(t, http.StatusForbidden)
		maria := patientPath(h.acme().Clients["maria"])
		sara.get(maria).must(t, http.StatusOK).contains(t, `<option value="`+id+`"`).lacks(t, `href="`+path+`"`)
		sara.get(maria+"?quick="+id).contains(t, `>`+text+`</textarea>`)

		// Another account cannot remove it.
		bob := h.newUser()
		bob.signIn("bob@other.test", "bob-password", "")
		bob.get("/app/keys")
		bob.post(path+"/"+id+"/remove", nil).must(t, http.StatusNotFound)

		ana.get(path)
		ana.follow(ana.post(path+"/"+id+"/remove", nil)).contains(t, "Quick reply removed.", "No quick replies yet.")
		if n := h.count("audit_log", "object_type = 'quick_reply' AND action = 'deleted' AND object_id = ?", id); n != 1 {
			t.Fatalf("audit entries: %d", n)
		}
		ana.post(path+"/"+id+"/remove", nil).must(t, http.StatusNotFound)
		ana.get(maria).lacks(t, `id="quick"`).contains(t, "Add quick replies in Settings")
	})
}
