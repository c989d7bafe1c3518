package dashboard

// The reports' tables (docs/reports.md): one function lays out every
// table the page shows and its CSV downloads, so the two cannot differ.

import (
	"strconv"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/reports"
)

// reportTableNames are the tables, as their CSV files are named.
var reportTableNames = []string{"appointments-status", "appointments-source", "appointments-rates", "utilisation",
	"messages", "message-reasons", "waitlist", "pipelines", "new-clients"}

// reportTables lays out every table of rep in lang. The utilisation table
// is there only in the owner's scope.
func reportTables(lang string, rep reports.Report) []reportTable {
	count := func(n int) string { return strconv.Itoa(n) }
	a := rep.Appointments
	var out []reportTable
	counted := func(name, caption, key string, cs []reports.Count, total int) {
		tb := reportTable{Name: name, Caption: caption, Head: []string{key, translate(lang, "Appointments"), translate(lang, "Share")}}
		for _, c := range cs {
			tb.Rows = append(tb.Rows, []string{valueIn(lang, c.Key), count(c.N), percent(lang, reports.Rate(c.N, total))})
		}
		tb.Rows = append(tb.Rows, []string{translate(lang, "Total"), count(total), percent(lang, reports.Rate(total, total))})
		out = append(out, tb)
	}
	counted("appointments-status", translate(lang, "Appointments by status"), translate(lang, "Status"), a.ByStatus, a.Total)
	counted("appointments-source", translate(lang, "Appointments by source"), translate(lang, "Source"), a.BySource, a.Total)
	toConfirm := "—"
	if a.Timed > 0 {
		toConfirm = durationWords(lang, a.MedianToConfirm)
	}
	out = append(out, reportTable{Name: "appointments-rates", Caption: translate(lang, "Attendance and confirmation"), Head: []string{translate(lang, "Measure"), translate(lang, "Appointments"), translate(lang, "Rate")},
		Rows: [][]string{
			{translate(lang, "No-shows"), count(a.NoShows), percent(lang, a.NoShowRate())},
			{translate(lang, "Late cancels"), count(a.LateCancels), percent(lang, a.LateCancelRate())},
			{translate(lang, "Confirmed"), count(a.Confirmed), percent(lang, a.ConfirmationRate())},
			{translate(lang, "Median time to confirm"), count(a.Timed), toConfirm},
		}})
	util := reportTable{Name: "utilisation", Caption: translate(lang, "Utilisation"), Head: []string{translate(lang, "Professional"), translate(lang, "Booked minutes"), translate(lang, "Working minutes"), translate(lang, "Utilisation")}}
	for _, u := range a.Utilisation {
		util.Rows = append(util.Rows, []string{u.Name, strconv.FormatInt(u.BookedMinutes, 10), strconv.FormatInt(u.WorkingMinutes, 10), percent(lang, u.Percent())})
	}
	tot := a.UtilisationTotal
	util.Rows = append(util.Rows, []string{translate(lang, "Total"), strconv.FormatInt(tot.BookedMinutes, 10), strconv.FormatInt(tot.WorkingMinutes, 10), percent(lang, tot.Percent())})
	out = append(out, util)

	m := rep.Messages
	msgs := reportTable{Name: "messages", Caption: translate(lang, "Messages by channel and status"), Head: []string{translate(lang, "Channel")}}
	for _, st := range m.Statuses {
		msgs.Head = append(msgs.Head, messageStatus(lang, st))
	}
	msgs.Head = append(msgs.Head, translate(lang, "Total"))
	for _, c := range m.Channels {
		row := []string{valueIn(lang, c.Channel)}
		for _, st := range m.Statuses {
			row = append(row, count(c.ByStatus[st]))
		}
		msgs.Rows = append(msgs.Rows, append(row, count(c.Total)))
	}
	out = append(out, msgs)
	reasons := reportTable{Name: "message-reasons", Caption: translate(lang, "Why messages failed or were suppressed"), Head: []string{translate(lang, "Channel"), translate(lang, "Status"), translate(lang, "Reason"), translate(lang, "Messages")}}
	for _, r := range m.Reasons {
		reasons.Rows = append(reasons.Rows, []string{valueIn(lang, r.Channel), messageStatus(lang, r.Status), cmpOr(r.Reason, "—"), count(r.N)})
	}
	out = append(out, reasons)

	w := rep.Waitlist
	toFill := "—"
	if w.Filled > 0 {
		toFill = durationWords(lang, w.MedianToFill)
	}
	out = append(out, reportTable{Name: "waitlist", Caption: translate(lang, "Seat offers"), Head: []string{translate(lang, "Measure"), translate(lang, "Value")},
		Rows: [][]string{
			{translate(lang, "Offers sent"), count(w.Sent)},
			{translate(lang, "Accepted"), count(w.Accepted)},
			{translate(lang, "Still held"), count(w.Held)},
			{translate(lang, "Expired or declined"), count(w.NotTaken)},
			{translate(lang, "Freed slots filled from the list"), count(w.Filled)},
			{translate(lang, "Median time to fill a freed slot"), toFill},
		}})

	funnel := reportTable{Name: "pipelines", Caption: translate(lang, "Pipeline funnel"), Head: []string{translate(lang, "Pipeline"), translate(lang, "Stage"), translate(lang, "Entries"), translate(lang, "Conversion"), translate(lang, "Cards that left"), translate(lang, "Median time in stage")}}
	for _, fu := range rep.Pipelines {
		for _, st := range fu.Stages {
			in := "—"
			if st.Left > 0 {
				in = durationWords(lang, st.MedianTime)
			}
			funnel.Rows = append(funnel.Rows, []string{fu.Name, st.Name, count(st.Entries), percent(lang, st.Conversion(fu)), count(st.Left), in})
		}
	}
	out = append(out, funnel)

	nc := rep.NewClients
	clients := reportTable{Name: "new-clients", Caption: translate(lang, "New clients by source"), Head: []string{translate(lang, "Source"), translate(lang, "Clients")}}
	for _, c := range nc.BySource {
		clients.Rows = append(clients.Rows, []string{valueIn(lang, c.Key), count(c.N)})
	}
	clients.Rows = append(clients.Rows, []string{translate(lang, "Total"), count(nc.Total)})
	out = append(out, clients)

	if !rep.Scope.PerProfessional {
		for i, tb := range out {
			if tb.Name == "utilisation" { // the clinic's total only
				out[i].Head[0] = translate(lang, "Clinic")
				out[i].Rows = out[i].Rows[len(out[i].Rows)-1:]
			}
		}
	}
	return out
}

// percent says a rate with one decimal in lang (a decimal comma in
// Spanish).
func percent(lang string, v float64) string {
	s := strconv.FormatFloat(v, 'f', 1, 64)
	if lang == "es" {
		s = strings.Replace(s, ".", ",", 1)
	}
	return s + " %"
}

// durationWords says a duration to the minute in lang: "3 h 20 min",
// "2 d 4 h", "45 min".
func durationWords(lang string, d time.Duration) string {
	d = d.Round(time.Minute)
	days, hours, minutes := int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour), int(d%time.Hour/time.Minute)
	switch {
	case days > 0:
		return translate(lang, "%d d %d h", days, hours)
	case hours > 0:
		return translate(lang, "%d h %d min", hours, minutes)
	}
	return translate(lang, "%d min", minutes)
}

func cmpOr(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

// messageStatus says an outbox status in lang, as the activity page does.
func messageStatus(lang, status string) string {
	switch status {
	case "pending":
		return translate(lang, "pending")
	case "sent":
		return translate(lang, "sent")
	case "delivered":
		return translate(lang, "delivered")
	case "read":
		return translate(lang, "read")
	case "failed":
		return translate(lang, "failed")
	case "suppressed":
		return translate(lang, "suppressed")
	case "cancelled":
		return translate(lang, "cancelled")
	}
	return valueIn(lang, status)
}
