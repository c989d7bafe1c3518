package bookingpage_test

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// TestBrowserBookingPage books in headless Chromium at a phone's width
// (390 × 844), with scripts off as the page needs none: service, slot,
// details, code, booked. Each page passes the dashboard's accessibility
// audit (../dashboard/testdata/a11y.js: labels, names, contrast, lang) and
// never scrolls sideways; the week of slots and the confirmation are saved
// as docs/screenshots/booking-page-slots.png and booking-page-booked.png.
// It runs when FRONTDESK_TEST_BROWSER=1 (Debian's chromium;
// FRONTDESK_CHROMIUM names another binary), on SQLite.
func TestBrowserBookingPage(t *testing.T) {
	if os.Getenv("FRONTDESK_TEST_BROWSER") != "1" {
		t.Skip("browser tests skipped: set FRONTDESK_TEST_BROWSER=1 (needs /usr/bin/chromium: apt-get install chromium)")
	}
	exe := os.Getenv("FRONTDESK_CHROMIUM")
	if exe == "" {
		exe = "/usr/bin/chromium"
	}
	audit, err := os.ReadFile("../dashboard/testdata/a11y.js")
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, dbtest.Open(t, db.SQLite))
	srv := httptest.NewServer(h.srv)
	t.Cleanup(srv.Close)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(exe), chromedp.Flag("headless", true), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("blink-settings", "scriptEnabled=false"),
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(390, 844))
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
	check := func(page string) {
		t.Helper()
		var problems []string
		run("audit "+page, func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
			v, err := chromedp.Evaluate[[]string](string(audit))(ctx, tg)
			problems = v
			return chromedp.Void{}, err
		})
		var wide bool
		run("width of "+page, func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
			v, err := chromedp.Evaluate[bool](`document.documentElement.scrollWidth > document.documentElement.clientWidth + 1`)(ctx, tg)
			wide = v
			return chromedp.Void{}, err
		})
		if wide {
			problems = append(problems, "the page is wider than the phone's screen")
		}
		for _, p := range problems {
			t.Errorf("%s: %s", page, p)
		}
	}
	shot := func(name string) {
		t.Helper()
		run("screenshot "+name, func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
			buf, err := chromedp.FullScreenshot(100)(ctx, tg) // 100: a PNG
			if err != nil {
				return chromedp.Void{}, err
			}
			return chromedp.Void{}, os.WriteFile(filepath.Join("..", "..", "docs", "screenshots", name), buf, 0o644)
		})
	}

	run("viewport", chromedp.EmulateViewport(390, 844))
	run("services", chromedp.Navigate(srv.URL+"/book/demo"), chromedp.WaitVisible(chromedp.CSS(`input[name=service]`)))
	check("services")
	run("see free times", chromedp.Click(chromedp.CSS(`main button[type=submit]`)), chromedp.WaitVisible(chromedp.CSS(`.slots a`)))
	check("slots")
	shot("booking-page-slots.png")
	run("pick a slot", chromedp.Click(chromedp.CSS(`.day:nth-of-type(2) .slots li:nth-child(3) a`)), chromedp.WaitVisible(chromedp.CSS(`#phone`)))
	check("details")
	run("details",
		chromedp.SendKeys(chromedp.CSS(`#phone`), "+34 611 909 808"),
		chromedp.SendKeys(chromedp.CSS(`#first_name`), "Lucía"),
		chromedp.SendKeys(chromedp.CSS(`#last_name`), "Navarro"),
		chromedp.Click(chromedp.CSS(`main form.panel button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`#code`)))
	check("code")
	run("code",
		chromedp.SendKeys(chromedp.CSS(`#code`), h.lastCode("+34611909808")),
		chromedp.Click(chromedp.CSS(`main form.panel button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`.manage-link`)))
	check("booked")
	shot("booking-page-booked.png")
}
