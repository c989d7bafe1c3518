package patients_test

import (
	"context"
	"slices"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/patients"
	"github.com/frontdesk/frontdesk/internal/workspace/workspacetest"
)

// TestOpen: a page shows only its services, its own account's, and an
// unknown slug or a page that is off are the same NOT_FOUND.
func TestOpen(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		c := newClinic(t, store)
		workspacetest.Apply(t, store, monday, "testdata/rival.yaml")
		workspacetest.Apply(t, store, monday, "testdata/shut.yaml")
		p := c.page
		var names []string
		for _, s := range p.Services {
			names = append(names, s.Name)
		}
		if !slices.Equal(names, []string{"Cleaning", "Physio"}) {
			t.Fatalf("services = %v, want Cleaning, Physio", names)
		}
		if p.Language != "en" || !p.Settings.VerifyPhone || p.Account.Slug != "sunny" {
			t.Fatalf("page = %+v", p)
		}
		if got := p.Services[0].Professionals; len(got) != 2 || got[0].Name != "Ana" || got[1].Name != "Ben" {
			t.Fatalf("cleaning professionals = %v", got)
		}
		if p.Services[1].DurationMinutes != 45 {
			t.Fatalf("physio = %+v", p.Services[1])
		}
		rival := openPage(t, store, "rival")
		if len(rival.Services) != 1 || rival.Services[0].Name != "Rival cleaning" || rival.Settings.VerifyPhone {
			t.Fatalf("rival page = %+v", rival)
		}
		for _, slug := range []string{"shut", "nobody", ""} {
			_, err := patients.Open(context.Background(), store, slug)
			wantCode(t, err, errs.NotFound)
		}
	})
}

// TestSettings: defaults, the round trip, and what SaveSettings refuses.
func TestSettings(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		c := newClinic(t, store)
		acct, _ := workspacetest.Apply(t, store, monday, "testdata/rival.yaml")
		got, err := patients.LoadSettings(ctx, store, c.acct)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Enabled || !got.VerifyPhone || !slices.Equal(got.EmbedOrigins, []string{"https://sunny.example"}) ||
			!slices.Equal(got.Services, []string{"cleaning", "physio"}) {
			t.Fatalf("sunny settings = %+v", got)
		}
		if err := patients.SaveSettings(ctx, store, acct, patients.Settings{Enabled: true, VerifyPhone: true,
			EmbedOrigins: []string{"http://LOCALHOST:8080", "http://localhost:8080"}}); err != nil {
			t.Fatal(err)
		}
		got, _ = patients.LoadSettings(ctx, store, acct)
		if !got.VerifyPhone || !slices.Equal(got.EmbedOrigins, []string{"http://localhost:8080"}) || len(got.Services) != 0 {
			t.Fatalf("rival settings = %+v", got)
		}
		for _, bad := range []patients.Settings{
			{EmbedOrigins: []string{"https://x.example/path"}},
			{Services: []string{"hidden"}}, // sunny's key, not rival's
			{EmbedOrigins: make([]string, patients.MaxEmbedOrigins+1)},
		} {
			wantCode(t, patients.SaveSettings(ctx, store, acct, bad), errs.ValidationError)
		}
		// An account that never saved any: off, phones verified.
		shut, _ := workspacetest.Apply(t, store, monday, "../workspace/testdata/acme.yaml")
		got, _ = patients.LoadSettings(ctx, store, shut)
		if got.Enabled || !got.VerifyPhone {
			t.Fatalf("default settings = %+v", got)
		}
	})
}

// TestCheckOrigin: an origin is scheme://host[:port], nothing more.
func TestCheckOrigin(t *testing.T) {
	for _, test := range []struct{ in, want string }{
		{"https://clinica.example", "https://clinica.example"},
		{"HTTPS://Clinica.Example:8443", "https://clinica.example:8443"},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080"},
		{"https://[::1]:8443", "https://[::1]:8443"},
		{"https://clinica.example/", ""},
		{"https://clinica.example/book", ""},
		{"https://clinica.example?x=1", ""},
		{"https://clinica.example#top", ""},
		{"https://user@clinica.example", ""},
		{"https://clinica.example:0", ""},
		{"https://clinica.example:70000", ""},
		{"https://clinica.example:", ""},
		{"ftp://clinica.example", ""},
		{"clinica.example", ""},
		{"https://", ""},
		{"*", ""},
		{"", ""},
	} {
		got, err := patients.CheckOrigin(test.in)
		if got != test.want || (err != nil) != (test.want == "") {
			t.Errorf("CheckOrigin(%q) = %q, %v; want %q", test.in, got, err, test.want)
		}
	}
}

// TestSlots: only the page's services, in the account's zone, at most
// the patient limit.
func TestSlots(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		c := newClinic(t, store)
		_, rivalIDs := workspacetest.Apply(t, store, monday, "testdata/rival.yaml")
		cleaning := c.ids.Services["cleaning"]
		list, err := patients.Slots(ctx, store, c.page, patients.SlotQuery{ServiceID: cleaning, Days: 1}, monday)
		if err != nil {
			t.Fatal(err)
		}
		// 09:00-13:00, 30 minutes, two professionals.
		if list.Timezone != "Europe/Madrid" || len(list.Slots) != 16 || list.Slots[0].StartAt != "2026-11-23T09:00:00" ||
			list.Slots[0].Professional.Name != "Ana" || list.Slots[1].Professional.Name != "Ben" {
			t.Fatalf("slots = %+v", list)
		}
		list, err = patients.Slots(ctx, store, c.page, patients.SlotQuery{ServiceID: cleaning, Days: 1,
			ProfessionalID: ptr(c.ids.Professionals["ben"])}, monday)
		if err != nil || len(list.Slots) != 8 || list.Slots[0].Professional.Name != "Ben" {
			t.Fatalf("ben's slots = %+v, %v", list, err)
		}
		list, err = patients.Slots(ctx, store, c.page, patients.SlotQuery{ServiceID: cleaning, Days: 31}, monday)
		if err != nil || len(list.Slots) != patients.SlotLimit || !list.HasMore {
			t.Fatalf("31 days: %d slots, has_more %v, %v", len(list.Slots), list.HasMore, err)
		}
		list, err = patients.Slots(ctx, store, c.page, patients.SlotQuery{ServiceID: cleaning}, monday)
		if err != nil || list.EndDate != "2026-11-29" {
			t.Fatalf("default days: %+v, %v", list, err)
		}
		for _, id := range []int64{c.ids.Services["hidden"], rivalIDs.Services["cleaning"], 0} {
			_, err := patients.Slots(ctx, store, c.page, patients.SlotQuery{ServiceID: id}, monday)
			wantCode(t, err, errs.ServiceNotFound)
			d := err.(*errs.Error).Details.(map[string]any)
			if ids := d["valid_service_ids"].([]int64); len(ids) != 2 || slices.Contains(ids, c.ids.Services["hidden"]) {
				t.Fatalf("valid ids = %v: only the page's services", ids)
			}
		}
		_, err = patients.Slots(ctx, store, c.page, patients.SlotQuery{ServiceID: c.ids.Services["physio"],
			ProfessionalID: ptr(c.ids.Professionals["ana"])}, monday)
		wantCode(t, err, errs.ProfessionalNotFound)
	})
}
