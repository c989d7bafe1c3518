package dashboard_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// TestBrowser drives Debian's Chromium (headless) through the dashboard as a
// person would, and saves a screenshot of every page under
// artifacts/screenshots/. It runs when FRONTDESK_TEST_BROWSER=1.
func TestBrowser(t *testing.T) {
	if os.Getenv("FRONTDESK_TEST_BROWSER") != "1" {
		t.Skip("browser tests skipped: set FRONTDESK_TEST_BROWSER=1 (needs /usr/bin/chromium: apt-get install chromium)")
	}
	exe := os.Getenv("FRONTDESK_CHROMIUM")
	if exe == "" {
		exe = "/usr/bin/chromium"
	}
	shots := filepath.Join("..", "..", "artifacts", "screenshots")
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	store := dbtest.Open(t, db.SQLite)
	h := newHarness(t, store)
	a := h.acme()

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 3*time.Minute)
	defer cancelTimeout()
	run := func(step string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}
	shot := func(name string) chromedp.Action[chromedp.Void] {
		return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
			buf, err := chromedp.FullScreenshot(100)(ctx, tg)
			if err != nil {
				return chromedp.Void{}, err
			}
			return chromedp.Void{}, os.WriteFile(filepath.Join(shots, name+".png"), buf, 0o644)
		}
	}
	// into stores what a value-returning action read, as a step.
	into := func(dst *string, a chromedp.Action[string]) chromedp.Action[chromedp.Void] {
		return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
			v, err := a(ctx, tg)
			*dst = v
			return chromedp.Void{}, err
		}
	}
	// Confirmation dialogs (data-confirm) are accepted, as a person would.
	acceptConfirm := func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Evaluate[any]("window.confirm = function () { return true }")(ctx, tg)
		return chromedp.Void{}, err
	}
	base := h.srv.URL

	// Sign in: a wrong password first, then the right one.
	run("sign-in page", chromedp.Navigate(base+"/app/keys"), chromedp.WaitVisible(chromedp.CSS("#email")), shot("01-sign-in"))
	var msg string
	run("wrong password",
		chromedp.SendKeys(chromedp.CSS("#email"), "ana@acme.test"),
		chromedp.SendKeys(chromedp.CSS("#password"), "wrong-password"),
		chromedp.Click(chromedp.CSS(`button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS("#login-error")),
		into(&msg, chromedp.Text(chromedp.CSS("#login-error"))))
	if !strings.Contains(msg, "do not match") {
		t.Fatalf("sign-in error = %q", msg)
	}
	run("sign in",
		chromedp.SendKeys(chromedp.CSS("#password"), "ana-password"),
		chromedp.Click(chromedp.CSS(`button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS("#key-name"))) // back to the page asked for

	// API keys: create, copy, use it against the API.
	var key string
	run("create key",
		chromedp.SendKeys(chromedp.CSS("#key-name"), "browser key"),
		chromedp.Click(chromedp.CSS(`#create-h + form button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS("#new-key")),
		into(&key, chromedp.Value(chromedp.CSS("#new-key"))),
		chromedp.Click(chromedp.CSS(`button[data-copy="#new-key"]`)),
		shot("02-api-keys"))
	if status, body := h.api("GET", "/api/v2/public/calendar/services", key, nil); status != 200 {
		t.Fatalf("the key from the browser: %d %v", status, body)
	}

	// Board: move María from New to Contacted with the card's menu.
	sales, maria := a.Pipelines["sales"], a.Clients["maria"]
	var card int64
	store.QueryRow(ctx, `SELECT id FROM cards WHERE client_id = ? AND pipeline_id = ?`, maria, sales).Scan(&card)
	sel := "#move-" + itoa(card)
	run("move card",
		chromedp.Navigate(base+"/app/pipelines/"+itoa(sales)),
		chromedp.WaitVisible(chromedp.CSS(sel)),
		shot("03-board"),
		chromedp.SetValue(chromedp.CSS(sel), itoa(a.Stages["sales/contacted"])),
		chromedp.Click(chromedp.CSS("#card-"+itoa(card)+" form.move button")),
		chromedp.WaitVisible(chromedp.CSS(".flash.ok")),
		into(&msg, chromedp.Text(chromedp.CSS(".flash.ok"))))
	if c := h.stageCounts(sales); c[a.Stages["sales/contacted"]] != 1 || c[a.Stages["sales/new"]] != 0 {
		t.Fatalf("stages after the browser's move (%q): %v", msg, c)
	}

	// A forbidden move is refused with the reason, and nothing moves.
	rules, pedro := a.Pipelines["rules"], a.Clients["pedro"]
	store.QueryRow(ctx, `SELECT id FROM cards WHERE client_id = ? AND pipeline_id = ?`, pedro, rules).Scan(&card)
	sel = "#move-" + itoa(card)
	run("forbidden move",
		chromedp.Navigate(base+"/app/pipelines/"+itoa(rules)),
		chromedp.WaitVisible(chromedp.CSS(sel)),
		chromedp.SetValue(chromedp.CSS(sel), itoa(a.Stages["rules/c"])),
		chromedp.Click(chromedp.CSS("#card-"+itoa(card)+" form.move button")),
		chromedp.WaitVisible(chromedp.CSS(".flash.error")),
		into(&msg, chromedp.Text(chromedp.CSS(".flash.error"))),
		shot("04-forbidden-move"))
	if !strings.Contains(msg, "not allowed by the pipeline's stage rules") {
		t.Fatalf("refusal shown = %q", msg)
	}
	if c := h.stageCounts(rules); c[a.Stages["rules/a"]] != 1 {
		t.Fatalf("forbidden move changed the board: %v", c)
	}
	run("card timeline", chromedp.Navigate(base+"/app/pipelines/"+itoa(sales)+"/cards/"+itoa(cardOf(t, store, maria, sales))),
		chromedp.WaitVisible(chromedp.CSS("main h1")), shot("05-card-timeline"))

	// Calendar: reschedule an appointment booked through the API.
	status, body := h.api("POST", "/api/v2/public/calendar/events", acmeKey, map[string]any{
		"client": map[string]any{"first_name": "Lola", "phone": "+34600555666"}, "service_id": a.Services["cleaning"],
		"professional_id": a.Professionals["lopez"], "event_type_id": a.EventTypes["visit"],
		"start_at": "2026-11-25T10:00:00", "end_at": "2026-11-25T10:30:00", "timezone": "Europe/Madrid"})
	if status != 200 {
		t.Fatalf("book: %d %v", status, body)
	}
	appt := itoa(int64(body["data"].(map[string]any)["id"].(float64)))
	run("reschedule",
		chromedp.Navigate(base+"/app/calendar?date=2026-11-25"),
		chromedp.WaitVisible(chromedp.CSS("#appt-"+appt+` a[href*="/reschedule"]`)),
		shot("06-calendar"),
		chromedp.Click(chromedp.CSS("#appt-"+appt+` a[href*="/reschedule"]`)),
		chromedp.WaitVisible(chromedp.CSS("#other-start")),
		// Thursday is not a working day: the time is refused with its
		// warnings first, and moved by the second, explicit submit.
		chromedp.SetValue(chromedp.CSS("#other-start"), "2026-11-26T12:30"),
		chromedp.Click(chromedp.CSS(`section[aria-labelledby="other-time"] button`)),
		chromedp.WaitVisible(chromedp.CSS(".confirm-move .warnings")),
		chromedp.Click(chromedp.CSS(".confirm-move button")),
		chromedp.WaitVisible(chromedp.CSS(".flash.warn")),
		into(&msg, chromedp.Text(chromedp.CSS(".flash.warn"))))
	if n := h.count("appointments", "id = ? AND start_at = ?", appt, time.Date(2026, 11, 26, 11, 30, 0, 0, time.UTC).UnixMicro()); n != 1 {
		t.Fatalf("not rescheduled (%q)", msg)
	}

	// Calendar: a slot held for a waiting-list offer shows apart from the
	// appointments; the confirmation filter, sent with the plain form,
	// keeps the pending appointment and hides the hold.
	thu := func(hm string) time.Time {
		v, _ := time.Parse("2006-01-02 15:04 MST", "2026-11-26 "+hm+" UTC")
		return v
	}
	held := itoa(h.addHeldEntry("acme", a.Waitlists["main"], pedro, a.Services["cleaning"], a.Professionals["lopez"], thu("14:00"), testNow.Add(2*time.Hour)))
	var hidden bool
	run("held slot and confirmation filter",
		chromedp.Navigate(base+"/app/calendar?date=2026-11-26&view=day"),
		chromedp.WaitVisible(chromedp.CSS("#hold-"+held)),
		into(&msg, chromedp.Text(chromedp.CSS("#hold-"+held))),
		shot("06b-calendar-held"),
		chromedp.SetValue(chromedp.CSS("#confirmation"), "pending"),
		chromedp.Click(chromedp.CSS(`form[action="/app/calendar"] button[type=submit]`)),
		// The reloaded page marks its choice with the selected attribute
		// (SetValue only changed the property).
		chromedp.WaitReady(chromedp.CSS(`#confirmation option[value="pending"][selected]`)),
		chromedp.WaitVisible(chromedp.CSS("#appt-"+appt+" .conf-pending")),
		func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
			v, err := chromedp.Evaluate[bool](`document.getElementById("hold-`+held+`") === null`)(ctx, tg)
			hidden = v
			return chromedp.Void{}, err
		},
		shot("06c-calendar-pending"))
	if !strings.Contains(msg, "Held for Pedro Sánchez until Mon 23 Nov, 12:00") || !hidden {
		t.Fatalf("held row %q; hidden by the filter: %v", msg, hidden)
	}

	// Clients: clear a field.
	run("clear client e-mail",
		chromedp.Navigate(base+"/app/clients?q=pedro"),
		chromedp.WaitVisible(chromedp.CSS("#q")),
		shot("07-clients"),
		chromedp.Navigate(base+"/app/clients/"+itoa(pedro)),
		chromedp.WaitVisible(chromedp.CSS("#email")),
		func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
			_, err := chromedp.Evaluate[any](`document.getElementById("email").value = ""`)(ctx, tg)
			return chromedp.Void{}, err
		},
		chromedp.Click(chromedp.CSS(`#edit-h ~ form button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(".flash.ok")),
		shot("08-client"))
	if n := h.count("clients", "id = ? AND email IS NULL", pedro); n != 1 {
		t.Fatal("the e-mail was not cleared")
	}

	// Waiting lists: remove an entry (the confirmation is accepted).
	status, body = h.api("POST", "/api/v2/public/calendar/waitlist/entries", acmeKey, map[string]any{
		"phone": "+34600111222", "service_ids": []int64{a.Services["cleaning"]}})
	if status != 200 {
		t.Fatalf("waitlist add: %d %v", status, body)
	}
	entry := itoa(int64(body["data"].(map[string]any)["entries"].([]any)[0].(map[string]any)["id"].(float64)))
	run("remove entry",
		chromedp.Navigate(base+"/app/waitlists"),
		chromedp.WaitVisible(chromedp.CSS("#entry-"+entry)),
		shot("09-waitlists"),
		acceptConfirm,
		chromedp.Click(chromedp.CSS("#entry-"+entry+` form[action$="/remove"] button`)),
		chromedp.WaitVisible(chromedp.CSS(".flash.ok")))
	if n := h.count("waitlist_entries", "id = ? AND status = 'removed'", entry); n != 1 {
		t.Fatal("the entry was not removed")
	}

	run("other pages",
		chromedp.Navigate(base+"/app/conversations"), chromedp.WaitVisible(chromedp.CSS("#search")), shot("10-conversations"),
		chromedp.Navigate(base+"/app/conversations/"+itoa(a.Conversations["c1"])), chromedp.WaitVisible(chromedp.CSS(".transcript")), shot("11-transcript"),
		chromedp.Navigate(base+"/app/activity"), chromedp.WaitVisible(chromedp.CSS("#kind")), shot("12-activity"),
		chromedp.EmulateViewport(390, 844),
		chromedp.Navigate(base+"/app/pipelines/"+itoa(sales)), chromedp.WaitVisible(chromedp.CSS("#board")), shot("13-board-phone"),
		chromedp.Navigate(base+"/app/calendar?date=2026-11-26"), chromedp.WaitVisible(chromedp.CSS("main h1")), shot("14-calendar-phone"))

	// Sign out: the dashboard sends the browser back to sign in.
	run("sign out",
		chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(base+"/app/keys"),
		chromedp.Click(chromedp.CSS(`form[action="/app/logout"] button`)),
		chromedp.WaitVisible(chromedp.CSS("#email")),
		chromedp.Navigate(base+"/app/keys"),
		chromedp.WaitVisible(chromedp.CSS("#email")))
}

func cardOf(t *testing.T, store *db.DB, clientID, pipelineID int64) int64 {
	var id int64
	if err := store.QueryRow(t.Context(), `SELECT id FROM cards WHERE client_id = ? AND pipeline_id = ?`, clientID, pipelineID).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}
