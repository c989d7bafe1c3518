package dashboard_test

import (
	"context"
	_ "embed"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// viewport is a screen the dashboard must work on.
type viewport struct {
	name          string
	width, height int
}

var viewports = []viewport{{"desktop", 1280, 900}, {"phone", 390, 844}}

// browser is one headless Chromium tab on a fresh dashboard (one engine,
// one viewport). Flows written against it run on both engines at both
// widths (browserFlow).
type browser struct {
	t    *testing.T
	h    *harness
	ctx  context.Context
	base string
	// suffix names this run's screenshots: -sqlite-desktop, -postgres-phone.
	suffix string
	vp     viewport
}

// browserFlow runs flow in Chromium on SQLite and PostgreSQL, at desktop and
// phone width, each on a fresh harness. It runs when
// FRONTDESK_TEST_BROWSER=1 (Debian's chromium; FRONTDESK_CHROMIUM names
// another binary).
func browserFlow(t *testing.T, flow func(b *browser)) {
	if os.Getenv("FRONTDESK_TEST_BROWSER") != "1" {
		t.Skip("browser tests skipped: set FRONTDESK_TEST_BROWSER=1 (needs /usr/bin/chromium: apt-get install chromium)")
	}
	exe := os.Getenv("FRONTDESK_CHROMIUM")
	if exe == "" {
		exe = "/usr/bin/chromium"
	}
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		for _, vp := range viewports {
			t.Run(vp.name, func(t *testing.T) {
				h := newHarness(t, store)
				opts := []chromedp.ExecAllocatorOption{
					chromedp.ExecPath(exe),
					chromedp.Flag("headless", true),
					chromedp.NoSandbox,
					chromedp.DisableGPU,
					chromedp.Flag("disable-background-networking", true),
					chromedp.Flag("lang", "en-US"),
					// Overlay scrollbars, as on a phone: the screenshot is then the
					// width the page is laid out at.
					chromedp.Flag("hide-scrollbars", true),
					chromedp.NoFirstRun,
					chromedp.NoDefaultBrowserCheck,
					chromedp.UserDataDir(t.TempDir()),
					chromedp.WindowSize(vp.width, vp.height),
				}
				actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
				defer cancelAlloc()
				ctx, cancel := chromedp.NewContext(actx)
				defer cancel()
				ctx, cancelTimeout := context.WithTimeout(ctx, 3*time.Minute)
				defer cancelTimeout()
				engine := "sqlite"
				if store.Engine() == db.Postgres {
					engine = "postgres"
				}
				b := &browser{t: t, h: h, ctx: ctx, base: h.srv.URL, suffix: "-" + engine + "-" + vp.name, vp: vp}
				b.run("viewport", chromedp.EmulateViewport(int64(vp.width), int64(vp.height)))
				flow(b)
			})
		}
	})
}

// phone reports whether this run is at phone width.
func (b *browser) phone() bool { return b.vp.name == "phone" }

// run performs a step's actions, failing the test with the step's name.
func (b *browser) run(step string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		b.t.Fatalf("%s: %v", step, err)
	}
}

// visit opens a dashboard path and waits for sel.
func (b *browser) visit(path, sel string) {
	b.t.Helper()
	b.run("visit "+path, chromedp.Navigate(b.base+path), chromedp.WaitVisible(chromedp.CSS(sel)))
}

// signIn signs in through the form.
func (b *browser) signIn(email, password string) {
	b.t.Helper()
	b.run("sign in as "+email,
		chromedp.Navigate(b.base+"/app/login"),
		chromedp.WaitVisible(chromedp.CSS("#email")),
		chromedp.SendKeys(chromedp.CSS("#email"), email),
		chromedp.SendKeys(chromedp.CSS("#password"), password),
		chromedp.Click(chromedp.CSS(`button[type=submit]`)),
		// Only signed-in pages have the sign-out form (the sign-in page
		// has a main h1 too).
		chromedp.WaitVisible(chromedp.CSS(`form[action="/app/logout"]`)),
		chromedp.WaitVisible(chromedp.CSS("main h1")))
}

// markPage tags the document in the tab; after a form is sent, newPage
// waits until the tab shows another document, fully loaded. Without it, a
// WaitVisible can be answered by the page the form was on (a flash message
// from the step before) while the answer is still loading.
func markPage(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
	_, err := chromedp.Evaluate[any](`window.__frontdeskOld = true`)(ctx, tg)
	return chromedp.Void{}, err
}

func newPage(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
	for {
		// Evaluating during the navigation can fail (the old document is
		// gone): ask again.
		done, err := chromedp.Evaluate[bool](`window.__frontdeskOld !== true && document.readyState === "complete"`)(ctx, tg)
		if err == nil && done {
			return chromedp.Void{}, nil
		}
		select {
		case <-ctx.Done():
			return chromedp.Void{}, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// submit runs a step that sends a form (actions end with the click) and
// waits for the answer's page, then for sel on it.
func (b *browser) submit(step, sel string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	all := append([]chromedp.Action[chromedp.Void]{markPage}, actions...)
	b.run(step, append(all, newPage, chromedp.WaitVisible(chromedp.CSS(sel)))...)
}

// text reads the text of the first element sel matches.
func (b *browser) text(sel string) string {
	b.t.Helper()
	var out string
	b.run("text of "+sel, func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		s, err := chromedp.Text(chromedp.CSS(sel))(ctx, tg)
		out = s
		return chromedp.Void{}, err
	})
	return out
}

// eval runs JavaScript and returns its value.
func eval[T any](b *browser, js string) T {
	b.t.Helper()
	var out T
	b.run("eval "+firstLine(js), func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		v, err := chromedp.Evaluate[T](js)(ctx, tg)
		out = v
		return chromedp.Void{}, err
	})
	return out
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// shot saves a full-page screenshot (JPEG) as artifacts/screenshots/NAME-ENGINE-VIEWPORT.jpg
// and checks the page (check).
func (b *browser) shot(name string) {
	b.t.Helper()
	dir := filepath.Join("..", "..", "artifacts", "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.t.Fatal(err)
	}
	b.run("screenshot "+name, func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		buf, err := chromedp.FullScreenshot(90)(ctx, tg)
		if err != nil {
			return chromedp.Void{}, err
		}
		return chromedp.Void{}, os.WriteFile(filepath.Join(dir, name+b.suffix+".jpg"), buf, 0o644) // FullScreenshot below 100 is a JPEG
	})
	b.check(name)
}

// overflowJS names the outermost element reaching past the right edge of
// the screen when the page scrolls sideways ("" when it does not).
const overflowJS = `(() => {
  const edge = document.documentElement.clientWidth + 1;
  if (document.documentElement.scrollWidth <= edge) return "";
  const inScroller = el => {
    for (let p = el.parentElement; p; p = p.parentElement) {
      const o = getComputedStyle(p).overflowX;
      if (o === "auto" || o === "scroll") return true;
    }
    return false;
  };
  const out = [];
  for (const el of document.body.querySelectorAll("*")) {
    if (el.getBoundingClientRect().right <= edge || inScroller(el)) continue;
    if (Array.from(el.children).some(c => c.getBoundingClientRect().right > edge)) continue;
    out.push("<" + el.tagName.toLowerCase() + "> ends at " + Math.round(el.getBoundingClientRect().right) + "px: " + (el.textContent || "").trim().slice(0, 40));
    if (out.length === 3) break;
  }
  return out.join("; ") || "(no element found)";
})()`

//go:embed testdata/a11y.js
var a11yJS string

// check runs the accessibility audit (testdata/a11y.js: every form control
// labelled, every button and link named, images with alt, text contrast at
// WCAG AA, unique ids, the page's language set) and, at phone width, that
// the page is no wider than the screen.
func (b *browser) check(page string) {
	b.t.Helper()
	problems := eval[[]string](b, a11yJS)
	if b.phone() {
		if wide := eval[string](b, overflowJS); wide != "" {
			problems = append(problems, "the page is wider than the phone's screen (it scrolls sideways): "+wide)
		}
	}
	for _, p := range problems {
		b.t.Errorf("%s%s: %s", page, b.suffix, p)
	}
}
