package dashboard_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserReports: the owner opens Reports for the hand-counted week
// (docs/reports.md), reads the rates, switches to a preset and back.
// Both engines, desktop and phone; screenshotted and audited.
func TestBrowserReports(t *testing.T) {
	browserFlow(t, func(b *browser) {
		slug := "rep" + b.vp.name // the engine's store is shared by both widths
		reportClinic(t, b.h, slug)
		b.signIn("olga@"+slug+".test", "olga-password")
		b.visit("/app/reports?"+reportWeek, "#appointments svg")
		if n := eval[int](b, `document.querySelectorAll("section.report svg[role=img]").length`); n != 5 {
			t.Errorf("%d charts, want 5", n)
		}
		if rates := b.text("#table-appointments-rates"); !strings.Contains(rates, "20,0 %") || !strings.Contains(rates, "40,0 %") {
			t.Errorf("rates: %q", rates)
		}
		b.shot("rp01-reports")
		b.submit("this month", "#appointments", chromedp.Click(chromedp.CSS(`a[href^="/app/reports?preset=this_month"]`)))
		if got := b.text(`nav a[aria-current="page"][href^="/app/reports?preset"]`); got != "este mes" {
			t.Errorf("current preset %q", got)
		}
		b.submit("the week again", "#appointments svg",
			chromedp.SetValue(chromedp.CSS("#from"), "2026-03-02"),
			chromedp.SetValue(chromedp.CSS("#to"), "2026-03-08"),
			chromedp.Click(chromedp.CSS(`form[action="/app/reports"] button[type=submit]`)))
		b.shot("rp02-reports-week")
	})
}
