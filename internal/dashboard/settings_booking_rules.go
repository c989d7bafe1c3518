package dashboard

// Settings › Booking rules: the account's rules, and a service's overrides
// on its settings page (docs/booking-rules.md). Values are read by the
// calendar's one rule reader (bookingrules.RuleSet.Set); saves are audited.

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/calendar/bookingrules"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// ruleField is one rule's form field: its value at this level ("" when
// the level does not set it) and what holds when it is left empty. A rule
// that is a switch (allow_series) has Choices: a select of empty, yes, no.
type ruleField struct {
	Name, Label, Hint string
	Value, Otherwise  string
	Choices           []ruleChoice
}

// ruleChoice is one option of a switch rule's select.
type ruleChoice struct {
	Value, Label string
}

// bookingRulesView is the account's booking rules page.
type bookingRulesView struct {
	Fields []ruleField
}

func (bookingRulesView) isPage() {}

// ruleLabel and ruleHint say a rule in the user's language.
func ruleLabel(s *session, name string) string {
	switch name {
	case calendar.RuleMinNotice:
		return s.Translate("Minimum notice")
	case calendar.RuleMaxAdvance:
		return s.Translate("Furthest ahead")
	case calendar.RuleCancelCutoff:
		return s.Translate("Cancel or move until")
	case calendar.RuleBufferBefore:
		return s.Translate("Buffer before (minutes)")
	case calendar.RuleBufferAfter:
		return s.Translate("Buffer after (minutes)")
	case calendar.RuleAllowSeries:
		return s.Translate("Weekly courses online")
	}
	return s.Translate("Future appointments per client")
}

func ruleHint(s *session, name string) string {
	switch name {
	case calendar.RuleMinNotice:
		return s.Translate("A slot starts at least this long from now, like 2h or 1d.")
	case calendar.RuleMaxAdvance:
		return s.Translate("A slot starts before now plus this, like 60d; none for no limit.")
	case calendar.RuleCancelCutoff:
		return s.Translate("Patients may cancel or move an appointment until this long before it, like 24h.")
	case calendar.RuleBufferBefore:
		return s.Translate("Free minutes the professional keeps before each appointment, 0 to 1440.")
	case calendar.RuleBufferAfter:
		return s.Translate("Free minutes the professional keeps after each appointment, 0 to 1440.")
	case calendar.RuleAllowSeries:
		return s.Translate("Whether patients may book a weekly course of sessions at once on the booking page; staff always may.")
	}
	return s.Translate("How many future appointments one client may hold, 1 to 1000; none for no limit.")
}

// ruleText writes a rule's value as the form shows it.
func ruleText(v any, set bool) string {
	switch {
	case !set:
		return ""
	case v == nil:
		return "none"
	}
	return fmt.Sprint(v)
}

// ruleFields lays out the form of a level that sets set, where otherwise
// holds for what it leaves out.
func ruleFields(s *session, set calendar.RuleSet, otherwise calendar.Rules) []ruleField {
	values := set.Values()
	under := effectiveValues(otherwise)
	out := make([]ruleField, len(bookingrules.Names))
	for i, name := range bookingrules.Names {
		v, ok := values[name]
		out[i] = ruleField{Name: name, Label: ruleLabel(s, name), Hint: ruleHint(s, name), Value: ruleText(v, ok), Otherwise: under[name]}
		if name == calendar.RuleAllowSeries { // a switch: true or false
			yesNo := map[string]string{"true": s.Translate("yes"), "false": s.Translate("no")}
			out[i].Otherwise = yesNo[under[name]]
			out[i].Choices = []ruleChoice{{"true", yesNo["true"]}, {"false", yesNo["false"]}}
		}
	}
	return out
}

// effectiveValues writes rules in force as the form shows them.
func effectiveValues(r calendar.Rules) map[string]string {
	set := calendar.RuleSet{MinNotice: &r.MinNotice, CancelCutoff: &r.CancelCutoff, BufferBefore: &r.BufferBefore, BufferAfter: &r.BufferAfter,
		AllowSeries: &r.AllowSeries}
	none, zero := 0, calendar.Rules{}.MinNotice
	set.MaxAdvance, set.MaxFuturePerClient = &zero, &none
	if r.MaxAdvance != nil {
		set.MaxAdvance = r.MaxAdvance
	}
	if r.MaxFuturePerClient != nil {
		set.MaxFuturePerClient = r.MaxFuturePerClient
	}
	out := map[string]string{}
	for name, v := range set.Values() {
		out[name] = ruleText(v, true)
	}
	return out
}

// readRuleForm reads the rules a form sets (an empty field sets nothing);
// the first value that does not read is refused with its field's label.
func readRuleForm(s *session, r *http.Request) (calendar.RuleSet, error) {
	values := map[string]any{}
	for _, name := range bookingrules.Names {
		if v := strings.TrimSpace(r.PostForm.Get(name)); v != "" {
			values[name] = v
		}
	}
	set, bad := bookingrules.Read(values)
	for _, name := range bookingrules.Names {
		if err := bad[name]; err != nil {
			var e *errs.Error
			if errors.As(err, &e) {
				return set, errs.New(errs.ValidationError, "%s: %s", ruleLabel(s, name), s.Err(e))
			}
			return set, err
		}
	}
	return set, nil
}

// bookingRulesPage handles "GET /app/settings/booking-rules".
func (d *Dashboard) bookingRulesPage(w http.ResponseWriter, r *http.Request, s *session) error {
	set, err := calendar.AccountRuleSet(r.Context(), d.db, s.Account)
	if err != nil {
		return err
	}
	d.render(w, r, s, http.StatusOK, "settings_booking_rules", "Booking rules", "settings-booking-rules",
		bookingRulesView{Fields: ruleFields(s, set, calendar.Rules{})})
	return nil
}

// saveBookingRules handles "POST /app/settings/booking-rules".
func (d *Dashboard) saveBookingRules(w http.ResponseWriter, r *http.Request, s *session) error {
	set, err := readRuleForm(s, r)
	if err != nil {
		return err
	}
	changed, err := d.change(r.Context(), s, "updated", "booking_rules", func(tx *db.Tx) (string, []string, error) {
		changes, err := calendar.SaveAccountRules(r.Context(), tx, s.Account, set)
		return idString(s.Account.ID), changes, err
	})
	if err != nil {
		return err
	}
	d.redirect(w, r, Prefix+"settings/booking-rules", "ok", savedMessage(s, changed))
	return nil
}

// saveServiceBookingRules handles "POST
// /app/settings/services/{service_id}/booking-rules": the rules the service
// sets over the account's.
func (d *Dashboard) saveServiceBookingRules(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "service_id")
	if err != nil {
		return err
	}
	if _, err := calendar.ServiceRuleSet(r.Context(), d.db, s.Account, id); err != nil {
		return err // an unknown service is NOT_FOUND before any value is read
	}
	set, err := readRuleForm(s, r)
	if err != nil {
		return err
	}
	changed, err := d.change(r.Context(), s, "updated", "service", func(tx *db.Tx) (string, []string, error) {
		changes, err := calendar.SaveServiceRules(r.Context(), tx, s.Account, id, set)
		for i := range changes {
			changes[i] = "booking rule " + changes[i]
		}
		return idString(id), changes, err
	})
	if err != nil {
		return err
	}
	d.redirect(w, r, Prefix+"settings/services/"+idString(id)+"#booking-rules", "ok", savedMessage(s, changed))
	return nil
}
