package bench

import (
	"fmt"
	"strings"
	"time"
)

// The performance targets (README, "Performance"), as ratios within one run.
const (
	limitsTarget  = 2.0 // 500 new rows ≤ 2x the limits floor
	limitsStretch = 1.5
	limitsOther   = 1.5 // update and mixed batches ≤ 1.5x theirs

	floorTarget  = 3.0 // ingest ≤ 3x the raw floor
	floorStretch = 1.5 // stretch goal
	sizeTarget   = 1.5 // a batch at the largest size ≤ 1.5x its cost at the smallest
	chatTarget   = 2.0 // the chat page at the most messages ≤ 2x at the fewest
)

var ingestMeasurements = []string{mIngestNew, mIngestUpdate, mIngestMixed}
var batchMeasurements = []string{mIngestNew, mIngestUpdate, mIngestMixed, mWaitlist}

// Markdown renders the report: the figures per size, their growth, the chat
// page, and PASS/MISS per target.
func (rep *Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s — `frontdesk bench`, %s\n\n", rep.Version, rep.Started.UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(&b, "- Machine: %d CPUs, %s; load average (1, 5, 15 min) %s at the start, %s at the end.\n", rep.CPUs, rep.GoVersion, rep.LoadBefore, rep.LoadAfter)
	fmt.Fprintf(&b, "- Database: %s. Run time %s.\n", rep.Database, rep.Elapsed.Round(time.Second))
	fmt.Fprintf(&b, "- Every request goes through the real HTTP handler in process (`httpapi.NewServer`, httptest recorder, no network). "+
		"Per level: one untimed round, then %d timed rounds with the measurements interleaved; after each round the rows it created are deleted. "+
		"Figures are median ms (p90 ms); services is read %d times per round and availability %d times. "+
		"Bulk loads write straight into the tables (db.InsertMany) and are followed by what a live store would have done before the next batch: "+
		"VACUUM (ANALYZE) of the loaded tables on PostgreSQL, a WAL checkpoint on SQLite (no ANALYZE: Frontdesk never runs it there).\n\n",
		rep.Iterations, servicesPerRound, availabilityPerRound)

	if len(rep.Levels) > 0 {
		b.WriteString("### By stored clients\n\n" +
			"Ingest batches go to one API input node (round-robin assignment, `trigger_automations: false`: the floor fires none either); " +
			"the update batch re-sends 500 existing clients (already on the pipeline), the mixed one 250 existing and 250 new rows with every tenth phone invalid. " +
			"Existing clients are bulk-loaded ones spread over the whole table when there are enough of them; at the smallest level they are created first, " +
			"which is why it holds about 750 clients. The waiting-list batch creates 500 clients and 500 entries over four services.\n\n| measurement |")
		for _, lv := range rep.Levels {
			fmt.Fprintf(&b, " %s clients |", thousands(lv.Stated))
		}
		b.WriteString("\n|---|" + strings.Repeat("---:|", len(rep.Levels)) + "\n")
		for _, name := range clientMeasurements {
			fmt.Fprintf(&b, "| %s |", titles[name])
			for _, lv := range rep.Levels {
				s := lv.Stats[name]
				fmt.Fprintf(&b, " %s (%s)", num(s.Median), num(s.P90))
				if isIngest(name) {
					fmt.Fprintf(&b, " · **%.2f×** floor", ratio(s.Median, lv.Stats[mFloor].Median))
					if lim := limitsFloorOf(name); lv.Stats[lim].N > 0 {
						fmt.Fprintf(&b, " · %.2f× limits", ratio(s.Median, lv.Stats[lim].Median))
					}
				}
				b.WriteString(" |")
			}
			b.WriteString("\n")
		}
		b.WriteString("| clients stored when the rounds began |")
		for _, lv := range rep.Levels {
			fmt.Fprintf(&b, " %s |", thousands(lv.Stored))
		}
		b.WriteString("\n| bulk load to reach the level |")
		for _, lv := range rep.Levels {
			if lv.Loaded == 0 {
				b.WriteString(" — |")
				continue
			}
			fmt.Fprintf(&b, " %s clients in %s (%s/s) |", thousands(lv.Loaded), lv.LoadTime.Round(100*time.Millisecond), thousands(int(float64(lv.Loaded)/lv.LoadTime.Seconds())))
		}
		b.WriteString("\n\n")

		if len(rep.Levels) > 1 {
			base := rep.Levels[0]
			fmt.Fprintf(&b, "Growth of each median from %s clients. In brackets, floor-adjusted: the growth divided by the raw floor's growth between the same levels. "+
				"The floor runs interleaved with every measurement, so this cancels a change in the machine's load between levels "+
				"(and hides the floor's own growth, small on a quiet machine).\n\n| measurement |", thousands(base.Stated))
			for _, lv := range rep.Levels[1:] {
				fmt.Fprintf(&b, " at %s |", thousands(lv.Stated))
			}
			b.WriteString("\n|---|" + strings.Repeat("---:|", len(rep.Levels)-1) + "\n")
			for _, name := range clientMeasurements {
				fmt.Fprintf(&b, "| %s |", titles[name])
				for _, lv := range rep.Levels[1:] {
					g := ratio(lv.Stats[name].Median, base.Stats[name].Median)
					if name == mFloor || name == mLimitsNew || name == mLimitsUpsert {
						fmt.Fprintf(&b, " %.2f× |", g)
						continue
					}
					fmt.Fprintf(&b, " %.2f× (%.2f×) |", g, g/ratio(lv.Stats[mFloor].Median, base.Stats[mFloor].Median))
				}
				b.WriteString("\n")
			}
			b.WriteString("\n")
		}
	}

	if st := rep.Streams; st != nil {
		fmt.Fprintf(&b, "### Two ingest streams into one account\n\nAt %s clients: %d batches of %d new rows through one input node, then %d batches through each of two input nodes of the same account side by side; "+
			"%d rounds after a warm-up, medians.\n\n| streams | rows/s |\n|---|---:|\n| one | %.0f |\n| two, side by side | %.0f |\n| ratio (median of the rounds) | %.2f× |\n\n",
			thousands(rep.Levels[0].Stated), st.Batches, st.Rows, st.Batches, st.Rounds, st.One, st.Two, st.Ratio)
	}

	if len(rep.Chat) > 0 {
		b.WriteString("### Chat page by stored messages\n\nThe page is 50 conversations of 500 messages each (25,000 messages, the newest conversations of the account); " +
			"the level is the number of messages in the other, older conversations (80 messages each, six in seven from a stored client).\n\n| measurement |")
		for _, lv := range rep.Chat {
			fmt.Fprintf(&b, " %s messages |", thousands(lv.Stated))
		}
		if len(rep.Chat) > 1 {
			b.WriteString(" growth |")
		}
		b.WriteString("\n|---|" + strings.Repeat("---:|", len(rep.Chat)))
		if len(rep.Chat) > 1 {
			b.WriteString("---:|")
		}
		b.WriteString("\n")
		for _, name := range chatMeasurements {
			fmt.Fprintf(&b, "| %s |", titles[name])
			for _, lv := range rep.Chat {
				s := lv.Stats[name]
				fmt.Fprintf(&b, " %s (%s) |", num(s.Median), num(s.P90))
			}
			if len(rep.Chat) > 1 {
				fmt.Fprintf(&b, " %.2f× |", ratio(rep.Chat[len(rep.Chat)-1].Stats[name].Median, rep.Chat[0].Stats[name].Median))
			}
			b.WriteString("\n")
		}
		b.WriteString("| messages stored in all |")
		for _, lv := range rep.Chat {
			fmt.Fprintf(&b, " %s |", thousands(lv.Stored))
		}
		if len(rep.Chat) > 1 {
			b.WriteString(" |")
		}
		b.WriteString("\n\n")
	}

	writeTargets(&b, "Targets", rep.Targets())
	return b.String()
}

// writeTargets renders targets as a PASS/MISS table under a heading.
func writeTargets(b *strings.Builder, title string, targets []Target) {
	fmt.Fprintf(b, "### %s\n\n| target | measured | result |\n|---|---:|---|\n", title)
	for _, t := range targets {
		measured := fmt.Sprintf("%.2f×", t.Value)
		if t.Shown != "" {
			measured = t.Shown
		}
		if t.Adjusted > 0 {
			measured += fmt.Sprintf(" (floor-adjusted %.2f×)", t.Adjusted)
		}
		fmt.Fprintf(b, "| %s | %s | %s |\n", t.Name, measured, t.Result())
	}
	b.WriteString("\n")
}

// Target is one checked target.
type Target struct {
	Name    string
	Value   float64
	Limit   float64
	Stretch float64 // 0: none
	// Adjusted is the growth divided by the raw floor's growth (size
	// targets only), shown next to Value, which alone decides.
	Adjusted float64
	// Shown replaces Value in the table for a target stated the other way
	// round (at least, not at most).
	Shown string
}

// Met reports whether the target is met.
func (t Target) Met() bool { return t.Value <= t.Limit }

// Result is "PASS", "MISS by 23 %", with the stretch goal when there is one.
func (t Target) Result() string {
	s := "**PASS**"
	if !t.Met() {
		s = fmt.Sprintf("**MISS** by %.0f %%", (t.Value/t.Limit-1)*100)
	}
	if t.Stretch > 0 {
		if t.Value <= t.Stretch {
			s += ", stretch met"
		} else {
			s += fmt.Sprintf(", stretch %.1f× missed", t.Stretch)
		}
	}
	return s
}

// Targets evaluates the performance targets on the report.
func (rep *Report) Targets() []Target {
	var out []Target
	for _, lv := range rep.Levels {
		for _, name := range ingestMeasurements {
			out = append(out, Target{Name: fmt.Sprintf("%s ≤ %.0f× raw floor, at %s clients", titles[name], floorTarget, thousands(lv.Stated)),
				Value: ratio(lv.Stats[name].Median, lv.Stats[mFloor].Median), Limit: floorTarget, Stretch: floorStretch})
		}
	}
	if n := len(rep.Levels); n > 1 {
		first, last := rep.Levels[0], rep.Levels[n-1]
		for _, name := range batchMeasurements {
			g := ratio(last.Stats[name].Median, first.Stats[name].Median)
			out = append(out, Target{Name: fmt.Sprintf("%s at %s clients ≤ %.1f× its cost at %s", titles[name], thousands(last.Stated), sizeTarget, thousands(first.Stated)),
				Value: g, Limit: sizeTarget, Adjusted: g / ratio(last.Stats[mFloor].Median, first.Stats[mFloor].Median)})
		}
	}
	// Two streams into one account on PostgreSQL (SQLite writes
	// one transaction at a time by design).
	if st := rep.Streams; st != nil && rep.Engine == "postgres" {
		out = append(out, Target{Name: "two ingest streams into two nodes of one account ≥ 1.6× the rows/s of one", Value: 1.6 / st.Ratio, Limit: 1,
			Shown: fmt.Sprintf("%.2f×", st.Ratio)})
	}
	// The limits floor is compared at the first level only: its tables
	// hold 500 contacts whatever the level.
	if len(rep.Levels) > 0 && rep.Levels[0].Stats[mLimitsNew].N > 0 {
		lv := rep.Levels[0]
		for _, name := range ingestMeasurements {
			limit, stretch := limitsOther, 0.0
			if name == mIngestNew {
				limit, stretch = limitsTarget, limitsStretch
			}
			lim := limitsFloorOf(name)
			out = append(out, Target{Name: fmt.Sprintf("%s ≤ %.1f× the limits floor (%s), at %s clients", titles[name], limit, limitsName(lim), thousands(lv.Stated)),
				Value: ratio(lv.Stats[name].Median, lv.Stats[lim].Median), Limit: limit, Stretch: stretch})
		}
	}
	if n := len(rep.Chat); n > 1 {
		first, last := rep.Chat[0], rep.Chat[n-1]
		for _, name := range chatMeasurements {
			out = append(out, Target{Name: fmt.Sprintf("%s at %s messages ≤ %.0f× its cost at %s", titles[name], thousands(last.Stated), chatTarget, thousands(first.Stated)),
				Value: ratio(last.Stats[name].Median, first.Stats[name].Median), Limit: chatTarget})
		}
	}
	return out
}

// limitsFloorOf is the limits floor an ingest measurement is held to: the
// upsert of existing contacts for the update batch, the insert of new ones
// for the others (a mixed batch's 250 updates cost less than inserts).
func limitsFloorOf(name string) string {
	if name == mIngestUpdate {
		return mLimitsUpsert
	}
	return mLimitsNew
}

func limitsName(m string) string {
	if m == mLimitsUpsert {
		return "upsert of 500 existing"
	}
	return "500 new"
}

func isIngest(name string) bool {
	for _, n := range ingestMeasurements {
		if n == name {
			return true
		}
	}
	return false
}

func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// num is a duration in milliseconds, without the unit.
func num(d time.Duration) string { return strings.TrimSuffix(ms(d), " ms") }

// thousands formats n with comma separators.
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
