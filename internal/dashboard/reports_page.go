package dashboard

// The reports page (docs/reports.md): a period's numbers per section, each
// a chart drawn on the server (reports_charts.go) beside its tables, and
// every table as CSV (reports_csv.go). The numbers are package reports';
// this file reads the filters and lays the numbers out as tables.

import (
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/reports"
)

// reportsView is the reports page.
type reportsView struct {
	Period          reports.Period
	Presets         []string
	PerProfessional bool
	Own             string // a staff professional's name: the appointment numbers are theirs
	Professionals   []reportOption
	Services        []reportOption
	ProfessionalID  int64
	ServiceID       int64
	// Query is the filters as a query string, for the CSV links.
	Query    string
	Sections []reportSection
}

func (reportsView) isPage() {}

// reportOption is a professional or a service of the filters.
type reportOption struct {
	ID   int64
	Name string
}

// reportSection is one section: its chart (an SVG with its title) and its
// tables.
type reportSection struct {
	ID, Title, Hint string
	Chart           template.HTML
	Tables          []reportTable
}

// reportTable is a table of the page and its CSV: Name is the CSV's
// (/app/reports/{Name}.csv); every cell is text as the page shows it.
type reportTable struct {
	Name, Caption string
	Head          []string
	Rows          [][]string
}

// reportFilters reads the page's filters: the period (preset, from, to)
// and the professional and service, checked against the account's and
// the reader's scope.
func (d *Dashboard) reportFilters(r *http.Request, s *session) (reports.Period, reports.Filter, reports.Scope, error) {
	q := r.URL.Query()
	scope := reports.ScopeFor(s.Role, s.ProfessionalID)
	p, err := reports.ParsePeriod(q.Get("preset"), q.Get("from"), q.Get("to"), s.Account.Location(), d.clock.Now())
	if err != nil {
		return p, reports.Filter{}, scope, err
	}
	f := reports.Filter{From: p.From, To: p.To}
	for _, x := range []struct {
		name string
		dst  *int64
	}{{"professional_id", &f.ProfessionalID}, {"service_id", &f.ServiceID}} {
		if v := q.Get(x.name); v != "" {
			id, err := strconv.ParseInt(v, 10, 64)
			if err != nil || id <= 0 {
				return p, f, scope, errs.New(errs.ValidationError, "Unknown %s %q.", x.name, v)
			}
			*x.dst = id
		}
	}
	return p, scope.Narrow(f), scope, nil
}

// reportsPage handles "GET /app/reports?preset=&from=&to=&professional_id=&service_id=".
func (d *Dashboard) reportsPage(w http.ResponseWriter, r *http.Request, s *session) error {
	p, f, scope, err := d.reportFilters(r, s)
	if err != nil {
		return err
	}
	pros, services, err := d.reportOptions(r, s, scope, f)
	if err != nil {
		return err
	}
	rep, err := reports.Build(r.Context(), d.db, s.Account, f, scope, d.clock.Now())
	if err != nil {
		return err
	}
	v := reportsView{Period: p, Presets: reports.Presets, PerProfessional: scope.PerProfessional,
		ProfessionalID: f.ProfessionalID, ServiceID: f.ServiceID, Query: reportQuery(p, f)}
	v.Professionals, v.Services = pros, services
	if scope.Own != 0 && len(pros) == 1 {
		v.Own = pros[0].Name
	}
	if v.Sections, err = reportSections(s.Lang, rep); err != nil {
		return err
	}
	d.render(w, r, s, http.StatusOK, "reports", "Reports", "reports", v)
	return nil
}

// reportOptions lists the professionals (in the owner's scope) and the
// services the filters offer; a chosen one that is not the account's is a
// 404.
func (d *Dashboard) reportOptions(r *http.Request, s *session, scope reports.Scope, f reports.Filter) (pros, services []reportOption, err error) {
	if scope.PerProfessional {
		list, err := calendar.CatalogProfessionals(r.Context(), d.db, s.Account)
		if err != nil {
			return nil, nil, err
		}
		for _, x := range list {
			if scope.Own == 0 || x.ID == scope.Own {
				pros = append(pros, reportOption{x.ID, x.Name})
			}
		}
	}
	list, err := calendar.CatalogServices(r.Context(), d.db, s.Account)
	if err != nil {
		return nil, nil, err
	}
	for _, x := range list {
		services = append(services, reportOption{x.ID, x.Name})
	}
	has := func(opts []reportOption, id int64) bool {
		return slices.ContainsFunc(opts, func(o reportOption) bool { return o.ID == id })
	}
	if (f.ProfessionalID != 0 && scope.PerProfessional && !has(pros, f.ProfessionalID)) || (f.ServiceID != 0 && !has(services, f.ServiceID)) {
		return nil, nil, errs.New(errs.NotFound, "not found")
	}
	return pros, services, nil
}

// reportQuery is the filters as a query string.
func reportQuery(p reports.Period, f reports.Filter) string {
	q := url.Values{"from": {p.FirstDay}, "to": {p.LastDay}}
	if f.ProfessionalID != 0 {
		q.Set("professional_id", strconv.FormatInt(f.ProfessionalID, 10))
	}
	if f.ServiceID != 0 {
		q.Set("service_id", strconv.FormatInt(f.ServiceID, 10))
	}
	return q.Encode()
}

// reportSections lays the report out as sections of tables and charts, in
// lang.
func reportSections(lang string, rep reports.Report) ([]reportSection, error) {
	tables := reportTables(lang, rep)
	byName := map[string]reportTable{}
	for _, t := range tables {
		byName[t.Name] = t
	}
	a := rep.Appointments
	var out []reportSection
	add := func(id, title, hint string, chart chartData, names ...string) error {
		sec := reportSection{ID: id, Title: title, Hint: hint}
		svg, err := chart.svg()
		if err != nil {
			return err
		}
		sec.Chart = svg
		for _, n := range names {
			if t, ok := byName[n]; ok {
				sec.Tables = append(sec.Tables, t)
			}
		}
		out = append(out, sec)
		return nil
	}
	status := chartData{Title: translate(lang, "Appointments by status")}
	for _, c := range a.ByStatus {
		status.Labels, status.Values = append(status.Labels, valueIn(lang, c.Key)), append(status.Values, float64(c.N))
	}
	if err := add("appointments", translate(lang, "Appointments"), translate(lang, "Appointments that start in the period."), status,
		"appointments-status", "appointments-source", "appointments-rates", "utilisation"); err != nil {
		return nil, err
	}
	channels := chartData{Title: translate(lang, "Messages by channel")}
	for _, c := range rep.Messages.Channels {
		channels.Labels, channels.Values = append(channels.Labels, valueIn(lang, c.Channel)), append(channels.Values, float64(c.Total))
	}
	if err := add("messages", translate(lang, "Messages"), translate(lang, "Messages queued in the period, by what became of them."), channels,
		"messages", "message-reasons"); err != nil {
		return nil, err
	}
	wl := rep.Waitlist
	offers := chartData{Title: translate(lang, "Seat offers"),
		Labels: []string{translate(lang, "Offers sent"), translate(lang, "Accepted"), translate(lang, "Still held"), translate(lang, "Expired or declined")},
		Values: []float64{float64(wl.Sent), float64(wl.Accepted), float64(wl.Held), float64(wl.NotTaken)}}
	if err := add("waitlist", translate(lang, "Waiting list"), translate(lang, "Seat offers sent in the period and the seats booked from the list."), offers, "waitlist"); err != nil {
		return nil, err
	}
	funnel := chartData{Title: translate(lang, "Cards entering each stage")}
	for _, fu := range rep.Pipelines {
		for _, st := range fu.Stages {
			funnel.Labels, funnel.Values = append(funnel.Labels, fu.Name+" · "+st.Name), append(funnel.Values, float64(st.Entries))
		}
	}
	if err := add("pipelines", translate(lang, "Pipelines"), translate(lang, "Cards that entered each stage in the period, and how long cards stayed."), funnel, "pipelines"); err != nil {
		return nil, err
	}
	clients := chartData{Title: translate(lang, "New clients by source")}
	for _, c := range rep.NewClients.BySource {
		clients.Labels, clients.Values = append(clients.Labels, valueIn(lang, c.Key)), append(clients.Values, float64(c.N))
	}
	if err := add("clients", translate(lang, "New clients"), translate(lang, "Clients added in the period, by where their first appointment came from."), clients, "new-clients"); err != nil {
		return nil, err
	}
	return out, nil
}
