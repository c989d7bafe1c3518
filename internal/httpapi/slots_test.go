package httpapi_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

const slotsPath = calendarPath + "/availability/slots"

// slotsOf returns a free-slots response's slots as "PRO start_at end_at
// start_at_utc end_at_utc" lines, checking the order (start, then
// professional id) on the way.
func slotsOf(t *testing.T, res response) []string {
	t.Helper()
	var out []string
	prevStart, prevPro := "", int64(0)
	for _, s := range res.list("data", "slots") {
		m := s.(map[string]any)
		pro := int64(m["professional"].(map[string]any)["id"].(float64))
		start := m["start_at_utc"].(string)
		if start < prevStart || (start == prevStart && pro <= prevPro) {
			t.Errorf("slots out of order at %v: %s", m, res.Raw)
		}
		prevStart, prevPro = start, pro
		out = append(out, fmt.Sprintf("%d %s %s %s %s", pro, m["start_at"], m["end_at"], start, m["end_at_utc"]))
	}
	return out
}

// perProfessional counts a free-slots response's slots by professional id.
func perProfessional(res response) map[int64]int {
	out := map[int64]int{}
	for _, s := range res.list("data", "slots") {
		out[int64(s.(map[string]any)["professional"].(map[string]any)["id"].(float64))]++
	}
	return out
}

// slotProblems lists a 422's items as "loc/type".
func slotProblems(res response) []string {
	var out []string
	for _, it := range res.list("detail") {
		m := it.(map[string]any)
		out = append(out, fmt.Sprintf("%v/%v", m["loc"], m["type"]))
	}
	slices.Sort(out)
	return out
}

// TestSlotsMatchCapacity: over the same window, each professional has as
// many free slots as availability's capacity counts, in the account's zone
// and in a zone where working hours cross midnight (Tokyo: Madrid's
// 15:00-18:00 is 23:00-02:00, split at midnight by both).
func TestSlotsMatchCapacity(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/calendar.yaml")
		a := h.acme()
		// A busy Tuesday for Dra. García and a clock inside the window.
		h.do("POST", calendarPath+"/events", acmeKey, booking(map[string]any{"service_id": a.Services["ortho"], "service_name": drop,
			"professional_id": a.Professionals["garcia"], "professional_name": drop,
			"start_at": "2026-11-24T10:00:00", "end_at": "2026-11-24T11:10:00"})).must(t, 200)
		// Wednesday: free 15:20-17:30, which Tokyo's midnight (16:00 in
		// Madrid) cuts into 40 and 90 minutes: one hour-long slot, not two.
		for _, span := range [][2]string{{"15:00", "15:20"}, {"17:30", "18:00"}} {
			h.do("POST", calendarPath+"/events", acmeKey, booking(map[string]any{"service_id": a.Services["cleaning"], "service_name": drop,
				"professional_id": a.Professionals["garcia"], "professional_name": drop,
				"start_at": "2026-11-25T" + span[0] + ":00", "end_at": "2026-11-25T" + span[1] + ":00"})).must(t, 200)
		}
		h.clock.Set(time.Date(2026, 11, 23, 9, 7, 30, 0, time.UTC)) // 10:07:30 in Madrid
		for _, zone := range []string{"", "Asia/Tokyo", "America/New_York"} {
			for _, svc := range []string{"cleaning", "ortho", "rev1"} {
				id := a.Services[svc]
				window := fmt.Sprintf("service_id=%d&days=8&timezone=%s", id, zone)
				av := h.do("GET", calendarPath+"/availability?"+window, acmeKey, nil).must(t, 200)
				_, _, want := capacities(t, av, id)
				res := h.do("GET", slotsPath+"?limit=500&"+window, acmeKey, nil).must(t, 200)
				got := perProfessional(res)
				if res.get("data", "has_more") != false || len(got) == 0 {
					t.Fatalf("%s %s: %s", zone, svc, res.Raw)
				}
				for pro, n := range want {
					if got[pro] != n {
						t.Errorf("%s %s: professional %d has %d slots, capacity %d", zone, svc, pro, got[pro], n)
					}
				}
				if len(got) > len(want) {
					t.Errorf("%s %s: slots of %v, capacity of %v", zone, svc, got, want)
				}
				if res.str("data", "start_date") != av.str("data", "start_date") || res.str("data", "end_date") != av.str("data", "end_date") ||
					res.str("data", "timezone") != av.str("data", "timezone") || res.num("data", "service_id") != float64(id) {
					t.Errorf("%s %s: window %s vs %s", zone, svc, res.Raw[:200], av.Raw[:200])
				}
				slotsOf(t, res)
			}
		}
		// Defaults: 7 days from today in the account's zone, limit 100; the
		// first slot is the next whole minute, never before now.
		res := h.do("GET", fmt.Sprintf("%s?service_id=%d", slotsPath, a.Services["cleaning"]), acmeKey, nil).must(t, 200)
		s := slotsOf(t, res)
		if res.str("data", "start_date") != "2026-11-23" || res.str("data", "end_date") != "2026-11-29" || res.str("data", "timezone") != "Europe/Madrid" ||
			res.str("data", "service_name") != "Limpieza dental" || res.num("data", "duration_minutes") != 30 ||
			len(s) != 99 || res.get("data", "has_more") != false {
			t.Fatalf("defaults: %d slots, %s", len(s), res.Raw[:300])
		}
		// Revisión (20 minutes) has more than 100 in the week: limit 100 by default.
		rev := h.do("GET", fmt.Sprintf("%s?service_id=%d", slotsPath, a.Services["rev1"]), acmeKey, nil).must(t, 200)
		if len(rev.list("data", "slots")) != 100 || rev.get("data", "has_more") != true {
			t.Errorf("default limit: %d slots, has_more %v", len(rev.list("data", "slots")), rev.get("data", "has_more"))
		}
		lopez, garcia := a.Professionals["lopez"], a.Professionals["garcia"]
		want := []string{
			fmt.Sprintf("%d 2026-11-23T10:08:00 2026-11-23T10:38:00 2026-11-23T09:08:00Z 2026-11-23T09:38:00Z", lopez),
			fmt.Sprintf("%d 2026-11-23T10:08:00 2026-11-23T10:38:00 2026-11-23T09:08:00Z 2026-11-23T09:38:00Z", garcia),
			fmt.Sprintf("%d 2026-11-23T10:38:00 2026-11-23T11:08:00 2026-11-23T09:38:00Z 2026-11-23T10:08:00Z", lopez),
		}
		if !slices.Equal(s[:3], want) {
			t.Errorf("first slots = %q\nwant %q", s[:3], want)
		}
	})
}

// TestSlotsBookAndHold: booking a listed slot has no warnings and removes
// it; a slot held by an outstanding seat offer is not listed until the hold
// expires.
func TestSlotsBookAndHold(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/calendar.yaml")
		a := h.acme()
		cleaning, garcia := a.Services["cleaning"], a.Professionals["garcia"]
		day := fmt.Sprintf("%s?service_id=%d&professional_id=%d&start_date=2026-12-01&days=1", slotsPath, cleaning, garcia)
		before := slotsOf(t, h.do("GET", day, acmeKey, nil).must(t, 200))
		if len(before) != 14 { // 09:00-13:00 and 15:00-18:00 in 30 minutes
			t.Fatalf("slots = %d %q", len(before), before)
		}
		var (
			pro                int64
			start, end, su, eu string
		)
		fmt.Sscanf(before[3], "%d %s %s %s %s", &pro, &start, &end, &su, &eu)
		res := h.do("POST", calendarPath+"/events", acmeKey, booking(map[string]any{"service_id": cleaning, "service_name": drop,
			"professional_id": pro, "professional_name": drop, "start_at": start, "end_at": end, "timezone": "Europe/Madrid"})).must(t, 200)
		if w := warningsOf(t, res); len(w) != 0 {
			t.Errorf("booking a listed slot: warnings %v", w)
		}
		after := slotsOf(t, h.do("GET", day, acmeKey, nil).must(t, 200))
		if !slices.Equal(after, slices.Delete(slices.Clone(before), 3, 4)) {
			t.Errorf("after booking %s:\n%q\nwant %q", start, after, slices.Delete(slices.Clone(before), 3, 4))
		}

		// A seat offer holds García's 15:00 slot for two hours.
		held := slices.IndexFunc(after, func(s string) bool { return strings.Contains(s, " 2026-12-01T15:00:00 ") })
		if held < 0 {
			t.Fatalf("no 15:00 slot in %q", after)
		}
		hs := time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC)
		now := h.clock.Now()
		if _, err := store.Exec(t.Context(), `INSERT INTO waitlist_entries (account_id, waitlist_id, client_id, service_id, status,
			queued_at, seat_expires_at, offer_professional_id, offer_start_at, offer_end_at, created_at, updated_at)
			VALUES (?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?, ?, ?)`,
			h.ids["acme"].Account.ID, a.Waitlists["main"], a.Clients["maria"], cleaning, db.Micros(now), db.Micros(now.Add(2*time.Hour)),
			garcia, db.Micros(hs), db.Micros(hs.Add(30*time.Minute)), db.Micros(now), db.Micros(now)); err != nil {
			t.Fatal(err)
		}
		heldSlot := after[held]
		got := slotsOf(t, h.do("GET", day, acmeKey, nil).must(t, 200))
		if slices.Contains(got, heldSlot) || len(got) != len(after)-1 {
			t.Errorf("held slot %s still listed: %q", heldSlot, got)
		}
		av := h.do("GET", fmt.Sprintf("%s/availability?service_id=%d&start_date=2026-12-01&days=1", calendarPath, cleaning), acmeKey, nil).must(t, 200)
		if _, _, caps := capacities(t, av, cleaning); caps[garcia] != len(got) {
			t.Errorf("capacity %d, slots %d while held", caps[garcia], len(got))
		}
		h.clock.Advance(2*time.Hour + time.Second) // the hold expires
		got = slotsOf(t, h.do("GET", day, acmeKey, nil).must(t, 200))
		if !slices.Equal(got, after) {
			t.Errorf("after the hold expired:\n%q\nwant %q", got, after)
		}
	})
}

// TestSlotsRefusals: schema problems are one 422 with every item; business
// rules are the availability's 400s (and booking's for professionals); other
// accounts' ids are unknown.
func TestSlotsRefusals(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/calendar.yaml")
		a, o := h.acme(), h.other()
		cleaning := a.Services["cleaning"]
		for _, tc := range []struct {
			query string
			want  []string
		}{
			{"", []string{"[query service_id]/missing"}},
			{"service_id=x&days=0&limit=501&start_date=2026-13-01", []string{"[query days]/greater_than_equal", "[query limit]/less_than_equal",
				"[query service_id]/int_parsing", "[query start_date]/date_from_datetime_parsing"}},
			{fmt.Sprintf("service_id=%d&days=32&limit=0&professional_id=a", cleaning), []string{"[query days]/less_than_equal",
				"[query limit]/greater_than_equal", "[query professional_id]/int_parsing"}},
			{fmt.Sprintf("service_id=%d&timezone=%s", cleaning, strings.Repeat("x", 65)), []string{"[query timezone]/string_too_long"}},
		} {
			res := h.do("GET", slotsPath+"?"+tc.query, acmeKey, nil).must(t, 422)
			if got := slotProblems(res); !slices.Equal(got, tc.want) {
				t.Errorf("%q: %v, want %v", tc.query, got, tc.want)
			}
		}
		validServices := fmt.Sprint([]any{float64(cleaning), float64(a.Services["ortho"]), float64(a.Services["rev1"]), float64(a.Services["rev2"])})
		for _, tc := range []struct {
			name, query, code, field string
		}{
			{"unknown service", "service_id=999999", "SERVICE_NOT_FOUND", "service_id"},
			{"inactive service", fmt.Sprintf("service_id=%d", a.Services["whitening"]), "SERVICE_NOT_FOUND", "service_id"},
			{"another account's service", fmt.Sprintf("service_id=%d", o.Services["cleaning"]), "SERVICE_NOT_FOUND", "service_id"},
			{"bad zone", fmt.Sprintf("service_id=%d&timezone=Mars/Base", cleaning), "INVALID_TIMEZONE", "timezone"},
			{"inactive professional", fmt.Sprintf("service_id=%d&professional_id=%d", cleaning, a.Professionals["ruiz"]), "PROFESSIONAL_NOT_FOUND", "professional_id"},
			{"not the service's", fmt.Sprintf("service_id=%d&professional_id=%d&professional_id=%d", cleaning, a.Professionals["lopez"], a.Professionals["garcia2"]), "PROFESSIONAL_NOT_FOUND", "professional_id"},
			{"another account's professional", fmt.Sprintf("service_id=%d&professional_id=%d", cleaning, o.Professionals["jones"]), "PROFESSIONAL_NOT_FOUND", "professional_id"},
		} {
			res := h.do("GET", slotsPath+"?"+tc.query, acmeKey, nil).must(t, 400)
			if res.errorCode() != tc.code || res.str("details", "field") != tc.field {
				t.Errorf("%s: %s", tc.name, res.Raw)
			}
			switch tc.code {
			case "SERVICE_NOT_FOUND":
				if fmt.Sprint(res.get("details", "valid_service_ids")) != validServices {
					t.Errorf("%s: valid ids %v, want %s", tc.name, res.get("details", "valid_service_ids"), validServices)
				}
			case "PROFESSIONAL_NOT_FOUND":
				want := fmt.Sprint([]any{float64(a.Professionals["lopez"]), float64(a.Professionals["garcia"])})
				if fmt.Sprint(res.get("details", "valid_professional_ids")) != want {
					t.Errorf("%s: valid ids %v, want %s", tc.name, res.get("details", "valid_professional_ids"), want)
				}
			}
		}
		// The other tenant sees its own service, never acme's.
		h.do("GET", fmt.Sprintf("%s?service_id=%d", slotsPath, o.Services["cleaning"]), otherKey, nil).must(t, 200)
		if res := h.do("GET", fmt.Sprintf("%s?service_id=%d", slotsPath, cleaning), otherKey, nil).must(t, 400); res.errorCode() != "SERVICE_NOT_FOUND" {
			t.Errorf("acme's service with other's key: %s", res.Raw)
		}
		// Empty start_date / timezone mean "not sent"; unknown parameters are ignored.
		h.do("GET", fmt.Sprintf("%s?service_id=%d&start_date=&timezone=&foo=1", slotsPath, cleaning), acmeKey, nil).must(t, 200)
		// The path is its own route: a wrong method is 405.
		if res := h.do("POST", slotsPath, acmeKey, nil).must(t, 405); res.errorCode() != "METHOD_NOT_ALLOWED" {
			t.Errorf("POST: %s", res.Raw)
		}
	})
}

// TestSlotsLimit: has_more tells whether the window holds more than limit.
func TestSlotsLimit(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/calendar.yaml")
		q := fmt.Sprintf("%s?service_id=%d&start_date=2026-12-01&days=1", slotsPath, h.acme().Services["cleaning"])
		all := slotsOf(t, h.do("GET", q+"&limit=500", acmeKey, nil).must(t, 200))
		if len(all) != 30 { // López 09:00-17:00 (16), García 7 h (14)
			t.Fatalf("slots = %d", len(all))
		}
		for _, tc := range []struct {
			limit   int
			hasMore bool
		}{{1, true}, {3, true}, {29, true}, {30, false}, {31, false}} {
			res := h.do("GET", fmt.Sprintf("%s&limit=%d", q, tc.limit), acmeKey, nil).must(t, 200)
			got := slotsOf(t, res)
			if !slices.Equal(got, all[:min(tc.limit, 30)]) || res.get("data", "has_more") != tc.hasMore {
				t.Errorf("limit %d: %d slots, has_more %v", tc.limit, len(got), res.get("data", "has_more"))
			}
		}
	})
}

// TestSlotsDST: wall-clock times follow Madrid's clock across the spring
// change (Sunday 2027-03-28, 02:00 -> 03:00): a professional working Sunday
// 00:00-06:00 has five hours, the 02:00 hour does not exist, and the UTC
// offset moves from +01:00 to +02:00.
func TestSlotsDST(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		res := h.applyData([]byte(`account: {slug: acme, name: Acme Clinic, timezone: Europe/Madrid, default_region: ES}
professionals:
  - {key: night, name: Dr. Noche, working_hours: {sat: ["22:00-24:00"], sun: ["00:00-06:00"], mon: ["09:00-10:00"]}}
services:
  - {key: night, name: Urgencias, default_duration_minutes: 60, professionals: [night], event_types: [visit]}
`))
		pro := res.IDs.Professionals["night"]
		got := slotsOf(t, h.do("GET", fmt.Sprintf("%s?service_id=%d&start_date=2027-03-27&days=3", slotsPath, res.IDs.Services["night"]), acmeKey, nil).must(t, 200))
		var want []string
		for _, s := range [][4]string{
			{"2027-03-27T22:00:00", "2027-03-27T23:00:00", "2027-03-27T21:00:00Z", "2027-03-27T22:00:00Z"},
			{"2027-03-27T23:00:00", "2027-03-28T00:00:00", "2027-03-27T22:00:00Z", "2027-03-27T23:00:00Z"},
			{"2027-03-28T00:00:00", "2027-03-28T01:00:00", "2027-03-27T23:00:00Z", "2027-03-28T00:00:00Z"},
			{"2027-03-28T01:00:00", "2027-03-28T03:00:00", "2027-03-28T00:00:00Z", "2027-03-28T01:00:00Z"},
			{"2027-03-28T03:00:00", "2027-03-28T04:00:00", "2027-03-28T01:00:00Z", "2027-03-28T02:00:00Z"},
			{"2027-03-28T04:00:00", "2027-03-28T05:00:00", "2027-03-28T02:00:00Z", "2027-03-28T03:00:00Z"},
			{"2027-03-28T05:00:00", "2027-03-28T06:00:00", "2027-03-28T03:00:00Z", "2027-03-28T04:00:00Z"},
			{"2027-03-29T09:00:00", "2027-03-29T10:00:00", "2027-03-29T07:00:00Z", "2027-03-29T08:00:00Z"},
		} {
			want = append(want, fmt.Sprintf("%d %s %s %s %s", pro, s[0], s[1], s[2], s[3]))
		}
		if !slices.Equal(got, want) {
			t.Errorf("slots across the change:\n%q\nwant\n%q", got, want)
		}
	})
}
