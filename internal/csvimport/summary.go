package csvimport

// The summary a run prints at the end: counts by status, in a stable
// order.

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// Print writes the human summary.
func (s *Summary) Print(w io.Writer) {
	verb := "Imported"
	if s.DryRun {
		verb = "Checked (dry run: nothing was written)"
	}
	if !s.Complete {
		verb = "Stopped after"
	}
	into := ""
	switch {
	case s.Kind == Pipeline && s.PipelineID != 0:
		into = fmt.Sprintf(" into pipeline %d, stage %d,", s.PipelineID, s.StageID)
	case s.Kind == Waitlist:
		into = fmt.Sprintf(" into waiting list %d,", s.WaitlistID)
	}
	retries := ""
	if s.Retries > 0 {
		retries = fmt.Sprintf(" (%s)", plural(s.Retries, "retry"))
	}
	fmt.Fprintf(w, "%s %s of %s rows%s in %s%s: %s, %s rows/s\n", verb, Thousands(s.RowsAnswered), Thousands(s.Rows),
		into, plural(s.Batches, "batch"), retries, Duration(s.Elapsed), Thousands(int(s.RowsPerSecond+0.5)))
	for _, k := range orderedKeys(s.Statuses, append(statusOrder[s.Kind], StatusRefused, StatusUnconfirmed, StatusNotSent)) {
		fmt.Fprintf(w, "  %-24s %8s\n", k, Thousands(s.Statuses[k]))
	}
	if len(s.Pipeline) > 0 {
		keys := orderedKeys(s.Pipeline, []string{"added", "reactivated", "already_active", "not_attempted"})
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + " " + Thousands(s.Pipeline[k])
		}
		fmt.Fprintf(w, "  pipeline: %s\n", strings.Join(parts, ", "))
	}
	if s.ResultsFile != "" {
		fmt.Fprintf(w, "Results: %s\n", s.ResultsFile)
	}
}

// orderedKeys lists m's non-zero keys: those in order first, the rest sorted.
func orderedKeys(m map[string]int, order []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, k := range order {
		seen[k] = true
		if m[k] != 0 {
			out = append(out, k)
		}
	}
	var rest []string
	for k, v := range m {
		if !seen[k] && v != 0 {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// plural writes "1 batch", "3 batches", "2 retries".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	switch {
	case strings.HasSuffix(word, "ch"):
		word += "es"
	case strings.HasSuffix(word, "y"):
		word = strings.TrimSuffix(word, "y") + "ies"
	default:
		word += "s"
	}
	return Thousands(n) + " " + word
}
