package dashboard_test

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/dashboard"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/pagesettings"
)

const bookingPageSettings = "/app/settings/booking-page"

// pageSettings reads an account's stored booking page settings, raw and
// read.
func (h *harness) pageSettings(slug string) (string, pagesettings.Settings) {
	h.t.Helper()
	var raw string
	if err := h.store.QueryRow(h.t.Context(), `SELECT booking_page FROM accounts WHERE slug = ?`, slug).Scan(&raw); err != nil {
		h.t.Fatal(err)
	}
	set, err := pagesettings.Decode(raw)
	if err != nil {
		h.t.Fatal(err)
	}
	return raw, set
}

// patientPageStatus is what the patient API answers for an account's page.
func (h *harness) patientPageStatus(slug string) int {
	h.t.Helper()
	res, err := http.Get(h.srv.URL + "/api/v2/book/" + slug)
	if err != nil {
		h.t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// lastAudit is the summary of the newest audit entry of acme's booking page.
func (h *harness) lastAudit(objectType string) string {
	h.t.Helper()
	var summary string
	if err := h.store.QueryRow(h.t.Context(), `SELECT summary FROM audit_log WHERE object_type = ? AND account_id = (SELECT id FROM accounts WHERE slug = 'acme')
		ORDER BY id DESC LIMIT 1`, objectType).Scan(&summary); err != nil {
		h.t.Fatal(err)
	}
	return summary
}

// TestSettingsBookingPage: an owner sees the page's address and embed
// snippet, turns the page on with services and origins (saved as keys and
// as origins, one audit entry saying what changed, none for a save that
// changes nothing), and the patient API follows at once. Refused forms
// report every bad line and save nothing; another account's settings stay
// as they were.
func TestSettingsBookingPage(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		ana := h.signedIn("ana@acme.test", "ana-password")
		otherRaw, _ := h.pageSettings("other")
		address := h.srv.URL + "/book/acme"

		first := ana.get(bookingPageSettings).must(t, http.StatusOK)
		first.contains(t, `aria-current="page">Booking page</a>`, `href="`+address+`"`,
			"this address answers 404 (not found) until you turn it on", "None ticked: every active service.",
			html.EscapeString(`<iframe src="`+address+`?embed=1" title="Book an appointment at Acme Clinic" style="width:100%;min-height:720px;border:0" loading="lazy"></iframe>`),
			"must be in the list of sites that may embed the page", `name="verify_phone" value="true" checked`, "Limpieza dental")
		if status := h.patientPageStatus("acme"); status != http.StatusNotFound {
			t.Fatalf("the page is off, the patient API answers %d", status)
		}

		// A second active service and an inactive one: only active ones
		// are offered.
		for _, form := range []url.Values{
			{"name": {"Fisioterapia"}, "duration": {"45"}, "active": {"true"}},
			{"name": {"Antiguo"}, "duration": {"30"}},
		} {
			ana.post("/app/settings/services", form).must(t, http.StatusSeeOther)
		}
		var physio string
		store.QueryRow(t.Context(), `SELECT file_key FROM services WHERE name = 'Fisioterapia'`).Scan(&physio)
		listed := ana.get(bookingPageSettings).must(t, http.StatusOK).contains(t, "Fisioterapia", `value="`+physio+`"`)
		if strings.Contains(listed.Body, "Antiguo") {
			t.Error("an inactive service is offered")
		}

		var many []string
		for i := range pagesettings.MaxEmbedOrigins + 1 {
			many = append(many, fmt.Sprintf("https://site%d.example", i))
		}
		for _, test := range []struct {
			name, origins string
			services      []string
			want          []string
		}{
			{"every bad line", "https://ok.example\nhttps://clinic.example/book\n\nftp://files.example\r\nhttps://good.example:8443", []string{"cleaning"},
				[]string{"Line 2: embed_origins: &#34;https://clinic.example/book&#34; is not an origin", "Line 4: embed_origins: &#34;ftp://files.example&#34; is not an origin",
					"Nothing was saved:", "https://ok.example\nhttps://clinic.example/book", `value="cleaning" checked`}},
			{"too many", strings.Join(many, "\n"), nil, []string{"At most 20 sites may embed the page; there are 21."}},
		} {
			t.Run(test.name, func(t *testing.T) {
				p := ana.post(bookingPageSettings, url.Values{"enabled": {"true"}, "embed_origins": {test.origins}, "services": test.services})
				p.must(t, http.StatusUnprocessableEntity).contains(t, test.want...)
				if strings.Contains(p.Body, "Line 1:") || strings.Contains(p.Body, "Line 5:") {
					t.Error("a good line is reported")
				}
			})
		}
		// A service that is not the account's is the area's refusal.
		ana.follow(ana.post(bookingPageSettings, url.Values{"enabled": {"true"}, "services": {"nope"}})).
			contains(t, `class="flash error"`, "services: &#34;nope&#34; is not a service of this account.")
		if n := h.auditRows("booking_page"); n != 0 {
			t.Fatalf("refused saves wrote %d audit entries", n)
		}
		if _, set := h.pageSettings("acme"); set.Enabled || len(set.EmbedOrigins) > 0 || len(set.Services) > 0 {
			t.Fatalf("refused saves stored %+v", set)
		}

		// On, without codes, two services, two origins.
		save := url.Values{"enabled": {"true"}, "embed_origins": {"HTTPS://Clinic.Example\r\n\r\nhttps://clinic.example:8443\r\n"}, "services": {"cleaning", physio}}
		saved := ana.follow(ana.post(bookingPageSettings, save)).must(t, http.StatusOK)
		saved.contains(t, "Saved.", `name="enabled" value="true" checked`, "https://clinic.example\nhttps://clinic.example:8443</textarea>",
			`value="cleaning" checked`, `value="`+physio+`" checked`)
		if strings.Contains(saved.Body, "answers 404") || strings.Contains(saved.Body, `name="verify_phone" value="true" checked`) {
			t.Error("the page still reads as off, or as verifying phones")
		}
		want := pagesettings.Settings{Enabled: true, EmbedOrigins: []string{"https://clinic.example", "https://clinic.example:8443"}, Services: []string{"cleaning", physio}}
		if _, got := h.pageSettings("acme"); !reflect.DeepEqual(got, want) {
			t.Errorf("stored %+v, want %+v", got, want)
		}
		if got, want := h.lastAudit("booking_page"), "enabled: false → true; verify_phone: true → false; embed_origins added https://clinic.example, https://clinic.example:8443; services: all → cleaning, "+physio; got != want {
			t.Errorf("audit summary %q, want %q", got, want)
		}
		if status := h.patientPageStatus("acme"); status != http.StatusOK {
			t.Errorf("the page is on, the patient API answers %d", status)
		}
		ana.follow(ana.post(bookingPageSettings, save)).contains(t, "Nothing changed.")
		if n := h.auditRows("booking_page"); n != 1 {
			t.Fatalf("audit entries = %d, want 1 (a save that changes nothing writes none)", n)
		}

		// An origin removed, every service again, codes back on.
		ana.follow(ana.post(bookingPageSettings, url.Values{"enabled": {"true"}, "verify_phone": {"true"}, "embed_origins": {"https://clinic.example"}})).contains(t, "Saved.")
		if got, want := h.lastAudit("booking_page"), "verify_phone: false → true; embed_origins removed https://clinic.example:8443; services: cleaning, "+physio+" → all"; got != want {
			t.Errorf("audit summary %q, want %q", got, want)
		}
		if n := h.count("audit_log", "object_type = 'booking_page' AND action = 'updated' AND user_name = 'Ana Ruiz'"); n != 2 {
			t.Errorf("audit entries by Ana = %d, want 2", n)
		}

		// Tenancy: the other account's page is its own and untouched.
		if raw, _ := h.pageSettings("other"); raw != otherRaw {
			t.Errorf("the other account's settings changed: %q → %q", otherRaw, raw)
		}
		bob := h.newUser()
		bob.signIn("bob@other.test", "bob-password", "")
		bobs := bob.get(bookingPageSettings).must(t, http.StatusOK).contains(t, h.srv.URL+"/book/other")
		if strings.Contains(bobs.Body, "https://clinic.example</textarea>") || strings.Contains(bobs.Body, "/book/acme") {
			t.Error("another account's owner sees acme's settings")
		}

		// Spanish.
		eva := h.signedIn("eva@acme.test", "eva-password")
		eva.get(bookingPageSettings).must(t, http.StatusOK).contains(t, "Página de reservas", "Sitios que pueden integrar la página")
	})
}

// TestSettingsBookingPageWho: staff may neither see nor save the settings;
// the address and snippet use the configured public URL.
func TestSettingsBookingPageWho(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarnessWith(t, store, func(c *dashboard.Config) { c.PublicURL = "https://clinic.example/" })
		before, _ := h.pageSettings("acme")
		sara := h.signedIn("sara@acme.test", "sara-password")
		sara.get(bookingPageSettings).must(t, http.StatusForbidden)
		sara.post(bookingPageSettings, url.Values{"enabled": {"true"}}).must(t, http.StatusForbidden)
		if after, _ := h.pageSettings("acme"); after != before || h.auditRows("booking_page") != 0 {
			t.Fatalf("staff changed the settings: %q → %q", before, after)
		}
		// Without the form's CSRF token an owner's save is refused too.
		ana := h.signedIn("ana@acme.test", "ana-password")
		ana.post(bookingPageSettings, url.Values{"enabled": {"true"}, "csrf_token": {"forged"}}).must(t, http.StatusForbidden)
		if after, _ := h.pageSettings("acme"); after != before {
			t.Fatal("a forged form changed the settings")
		}
		ana.get(bookingPageSettings).must(t, http.StatusOK).contains(t, `href="https://clinic.example/book/acme"`,
			"src=&#34;https://clinic.example/book/acme?embed=1&#34;")
	})
}
