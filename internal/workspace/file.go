// Package workspace reads, validates and applies workspace files: the
// document (YAML or JSON) that provisions an account and everything in it
// (README, "Commands"). The same code runs behind `frontdesk workspace apply`
// and `PUT /api/v2/admin/workspaces/{slug}`. A file is validated as a whole
// before anything is written, applied in one transaction, and matched by each
// object's `key`, so applying it twice changes nothing the second time.
package workspace

import (
	"bytes"
	"strings"

	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/jobs"
	"gopkg.in/yaml.v3"
)

// File is a workspace document.
type File struct {
	Account         AccountSpec        `yaml:"account" json:"account"`
	APIKeys         []KeySpec          `yaml:"api_keys" json:"api_keys"`
	Users           []UserSpec         `yaml:"users" json:"users"`
	AIAgents        []NamedSpec        `yaml:"ai_agents" json:"ai_agents"`
	EventTypes      []EventTypeSpec    `yaml:"event_types" json:"event_types"`
	Professionals   []ProfessionalSpec `yaml:"professionals" json:"professionals"`
	Resources       []ResourceSpec     `yaml:"resources" json:"resources"`
	Services        []ServiceSpec      `yaml:"services" json:"services"`
	Notifications   *Notifications     `yaml:"notifications" json:"notifications"`
	Waitlists       []WaitlistSpec     `yaml:"waitlists" json:"waitlists"`
	Webhooks        []WebhookSpec      `yaml:"webhooks" json:"webhooks"`
	DispositionTags []ColoredSpec      `yaml:"disposition_tags" json:"disposition_tags"`
	Pipelines       []PipelineSpec     `yaml:"pipelines" json:"pipelines"`
	Clients         []ClientSpec       `yaml:"clients" json:"clients"`
	Conversations   []ConversationSpec `yaml:"conversations" json:"conversations"`
	Channels        []ChannelSpec      `yaml:"channels" json:"channels"`
	Messaging       *MessagingSpec     `yaml:"messaging" json:"messaging"`
	BookingPage     *BookingPageSpec   `yaml:"booking_page" json:"booking_page"`
}

type AccountSpec struct {
	Slug          string      `yaml:"slug"`
	Name          string      `yaml:"name"`
	Timezone      string      `yaml:"timezone"`
	DefaultRegion string      `yaml:"default_region"`
	Language      string      `yaml:"language"` // es | en: the built-in texts
	Limits        *LimitsSpec `yaml:"limits"`
	// BookingRules are the account's booking rules (docs/booking-rules.md),
	// by rule name; values are checked by bookingrules.RuleSet.Set.
	BookingRules map[string]any `yaml:"booking_rules"`
	// Retention is how long the account keeps messages, the outbox,
	// webhook deliveries and the audit log (docs/retention.md), by kind;
	// values are read by retention.Read.
	Retention map[string]any `yaml:"retention"`
	keys      present        // the keys the file gave
}

// LimitsSpec is the account's API rate limit (docs/contract.md, Rate limits). Values are
// read as any so that a wrong type is a validation problem naming its path
// (account.limits.burst), not a parse error; null means the default.
type LimitsSpec struct {
	RequestsPerSecond any     `yaml:"requests_per_second"`
	Burst             any     `yaml:"burst"`
	keys              present // the keys the file gave
}

type KeySpec struct {
	Key       string  `yaml:"key"`
	Name      string  `yaml:"name"`
	Value     string  `yaml:"value"`
	ExpiresAt string  `yaml:"expires_at"`
	Revoked   bool    `yaml:"revoked"`
	keys      present // the keys the file gave
}

type UserSpec struct {
	Key      string `yaml:"key"`
	Name     string `yaml:"name"`
	Email    string `yaml:"email"`
	Password string `yaml:"password"`
	Active   *bool  `yaml:"active"`
	// Role is owner (default: settings too) or staff (the day's work).
	Role string `yaml:"role"`
	// Language is the user's dashboard language (es, en); empty follows
	// the account's.
	Language string `yaml:"language"`
	// Professional is the key of the professional the user is, if any: a
	// staff user's reports show that professional's numbers (docs/reports.md).
	// null unlinks.
	Professional *string `yaml:"professional"`
	keys         present // the keys the file gave
}

type NamedSpec struct {
	Key  string  `yaml:"key"`
	Name string  `yaml:"name"`
	keys present // the keys the file gave
}

type ColoredSpec struct {
	Key   string  `yaml:"key"`
	Name  string  `yaml:"name"`
	Color string  `yaml:"color"`
	keys  present // the keys the file gave
}

type EventTypeSpec struct {
	Key    string  `yaml:"key"`
	Name   string  `yaml:"name"`
	Color  string  `yaml:"color"`
	Active *bool   `yaml:"active"`
	keys   present // the keys the file gave
}

type ProfessionalSpec struct {
	Key          string              `yaml:"key"`
	Name         string              `yaml:"name"`
	Active       *bool               `yaml:"active"`
	WorkingHours map[string][]string `yaml:"working_hours"`
	TimeOff      []TimeOffSpec       `yaml:"time_off"`
	keys         present             // the keys the file gave
}

type TimeOffSpec struct {
	From string `yaml:"from" json:"from"`
	To   string `yaml:"to" json:"to"`
}

type ServiceSpec struct {
	Key                    string   `yaml:"key"`
	Name                   string   `yaml:"name"`
	Color                  string   `yaml:"color"`
	DefaultDurationMinutes int      `yaml:"default_duration_minutes"`
	Active                 *bool    `yaml:"active"`
	Professionals          []string `yaml:"professionals"`
	EventTypes             []string `yaml:"event_types"`
	// BookingRules override the account's field by field.
	BookingRules map[string]any `yaml:"booking_rules"`
	// Resources is the room or equipment the service needs (docs/rooms.md).
	Resources *ResourceNeed `yaml:"resources"`
	keys      present       // the keys the file gave
}

// Notifications are the calendar's own settings for booking messages.
type Notifications struct {
	ConfirmationRequest bool     `yaml:"confirmation_request" json:"confirmation_request"`
	Reminders           []string `yaml:"reminders" json:"reminders"`
	keys                present  // the keys the file gave
}

type WaitlistSpec struct {
	Key         string   `yaml:"key"`
	Name        string   `yaml:"name"`
	Active      *bool    `yaml:"active"`
	HorizonDays *int     `yaml:"horizon_days"`
	Services    []string `yaml:"services"`
	RunEvery    string   `yaml:"run_every"`
	SeatTTL     string   `yaml:"seat_ttl"`
	MaxOffers   *int     `yaml:"max_offers"`
	keys        present  // the keys the file gave
}

type WebhookSpec struct {
	Key    string   `yaml:"key"`
	URL    string   `yaml:"url"`
	Events []string `yaml:"events"`
	Secret string   `yaml:"secret"`
	Active *bool    `yaml:"active"`
	keys   present  // the keys the file gave
}

type PipelineSpec struct {
	Key         string          `yaml:"key"`
	Name        string          `yaml:"name"`
	Description *string         `yaml:"description"`
	Status      string          `yaml:"status"`
	Stages      []StageSpec     `yaml:"stages"`
	InputNodes  []InputNodeSpec `yaml:"input_nodes"`
	keys        present         // the keys the file gave
}

type StageSpec struct {
	Key            string           `yaml:"key"`
	Name           string           `yaml:"name"`
	StageType      string           `yaml:"stage_type"`
	Color          string           `yaml:"color"`
	EntryPoint     bool             `yaml:"entry_point"`
	AllowedTargets *[]string        `yaml:"allowed_targets"`
	Automations    []AutomationSpec `yaml:"automations"`
	keys           present          // the keys the file gave
}

// AutomationSpec is one on-arrival automation of a stage: the job worker's
// own type (jobs.Automation), which the file writes as it is stored.
type AutomationSpec = jobs.Automation

// SequenceStep is one delayed message of a sequence automation.
type SequenceStep = jobs.SequenceStep

type InputNodeSpec struct {
	Key              string          `yaml:"key"`
	UUID             string          `yaml:"uuid"`
	Name             string          `yaml:"name"`
	Type             string          `yaml:"type"`
	Active           *bool           `yaml:"active"`
	TargetStage      string          `yaml:"target_stage"`
	DefaultLeadValue float64         `yaml:"default_lead_value"`
	Assignment       *AssignmentSpec `yaml:"assignment"`
	keys             present         // the keys the file gave
}

type AssignmentSpec struct {
	Strategy string   `yaml:"strategy"`
	Pool     []string `yaml:"pool"`
	keys     present  // the keys the file gave
}

type ClientSpec struct {
	Key       string          `yaml:"key"`
	FirstName string          `yaml:"first_name"`
	LastName  string          `yaml:"last_name"`
	Phone     string          `yaml:"phone"`
	Email     *string         `yaml:"email"`
	Company   *string         `yaml:"company"`
	Timezone  string          `yaml:"timezone"`
	Data      map[string]any  `yaml:"data"`
	Tags      []string        `yaml:"tags"`
	Pipelines []PlacementSpec `yaml:"pipelines"`
	// NationalID is a DNI or NIE (contact.NationalID), Insurer and
	// InsurancePolicy free text (contact.Insurance); "" clears
	// (docs/patient-fields.md).
	NationalID      string  `yaml:"national_id"`
	Insurer         string  `yaml:"insurer"`
	InsurancePolicy string  `yaml:"insurance_policy"`
	keys            present // the keys the file gave
}

type PlacementSpec struct {
	Pipeline string `yaml:"pipeline"`
	Stage    string `yaml:"stage"`
}

type ConversationSpec struct {
	Key                 string        `yaml:"key" json:"key"`
	CustomerPhoneNumber string        `yaml:"customer_phone_number" json:"customer_phone_number"`
	Status              string        `yaml:"status" json:"status"`
	Direction           string        `yaml:"direction" json:"direction"`
	Disposition         string        `yaml:"disposition" json:"disposition"`
	Sentiment           string        `yaml:"sentiment" json:"sentiment"`
	Summary             string        `yaml:"summary" json:"summary"`
	CreatedAt           string        `yaml:"created_at" json:"created_at"`
	Messages            []MessageSpec `yaml:"messages" json:"messages"`
	keys                present       // the keys the file gave
}

// MessageSpec is the message shape of the workspace file (chat's), also
// used by the admin append route and `frontdesk chat import`.
type MessageSpec = chat.MessageInput

// MediaSpec is media metadata; files themselves are never stored or served.
type MediaSpec = chat.MediaInput

// present records which keys a mapping of the file had, so that apply can
// tell a key the file leaves out (the stored value stays) from one it gives
// (the value is written). Parse fills it for YAML and JSON alike; a spec built
// in code or decoded with encoding/json (chat import lines) has none, and
// then every field counts as given, as a whole record does.
type present map[string]bool

// has reports whether the file gave key.
func (p present) has(key string) bool { return p == nil || p[key] }

// track decodes n into v (a spec under a local type without methods, so this
// is not called again) and records the keys n had in p.
func track(n *yaml.Node, v any, p *present) error {
	if err := n.Decode(v); err != nil {
		return err
	}
	*p = present{}
	keysOf(n, *p, 0)
	return nil
}

func keysOf(n *yaml.Node, p present, depth int) {
	if depth > 16 {
		return
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		keysOf(n.Alias, p, depth+1)
		return
	}
	if n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Value == "<<" && k.Tag == "!!merge" {
			// Merge keys: the merged mappings' keys are the file's too.
			if v.Kind == yaml.SequenceNode {
				for _, m := range v.Content {
					keysOf(m, p, depth+1)
				}
			} else {
				keysOf(v, p, depth+1)
			}
			continue
		}
		p[k.Value] = true
	}
}

func (s *AccountSpec) UnmarshalYAML(n *yaml.Node) error {
	type plain AccountSpec
	return track(n, (*plain)(s), &s.keys)
}

func (s *LimitsSpec) UnmarshalYAML(n *yaml.Node) error {
	type plain LimitsSpec
	return track(n, (*plain)(s), &s.keys)
}

func (s *KeySpec) UnmarshalYAML(n *yaml.Node) error {
	type plain KeySpec
	return track(n, (*plain)(s), &s.keys)
}

func (s *UserSpec) UnmarshalYAML(n *yaml.Node) error {
	type plain UserSpec
	return track(n, (*plain)(s), &s.keys)
}

func (s *NamedSpec) UnmarshalYAML(n *yaml.Node) error {
	type plain NamedSpec
	return track(n, (*plain)(s), &s.keys)
}

func (s *ColoredSpec) UnmarshalYAML(n *yaml.Node) error {
	type plain ColoredSpec
	return track(n, (*plain)(s), &s.keys)
}

func (s *EventTypeSpec) UnmarshalYAML(n *yaml.Node) error {
	type plain EventTypeSpec
	return track(n, (*plain)(s), &s.keys)
}

func (s *ProfessionalSpec) UnmarshalYAML(n *yaml.Node) error {
	type plain ProfessionalSpec
	return track(n, (*plain)(s), &s.keys)
}

func (s *ServiceSpec) UnmarshalYAML(n *yaml.Node) error {
	type plain ServiceSpec
	return track(n, (*plain)(s), &s.keys)
}

func (s *Notifications) UnmarshalYAML(n *yaml.Node) error {
	type plain Notifications
	return track(n, (*plain)(s), &s.keys)
}

func (s *WaitlistSpec) UnmarshalYAML(n *yaml.Node) error {
	type plain WaitlistSpec
	return track(n, (*plain)(s), &s.keys)
}

func (s *WebhookSpec) UnmarshalYAML(n *yaml.Node) error {
	type plain WebhookSpec
	return track(n, (*plain)(s), &s.keys)
}

func (s *PipelineSpec) UnmarshalYAML(n *yaml.Node) error {
	type plain PipelineSpec
	return track(n, (*plain)(s), &s.keys)
}

func (s *StageSpec) UnmarshalYAML(n *yaml.Node) error {
	type plain StageSpec
	return track(n, (*plain)(s), &s.keys)
}

func (s *InputNodeSpec) UnmarshalYAML(n *yaml.Node) error {
	type plain InputNodeSpec
	return track(n, (*plain)(s), &s.keys)
}

func (s *AssignmentSpec) UnmarshalYAML(n *yaml.Node) error {
	type plain AssignmentSpec
	return track(n, (*plain)(s), &s.keys)
}

// UnmarshalYAML reads a client; its names are trimmed (contact.Names), as
// every door trims them.
func (s *ClientSpec) UnmarshalYAML(n *yaml.Node) error {
	type plain ClientSpec
	err := track(n, (*plain)(s), &s.keys)
	s.FirstName, s.LastName, _ = contact.Names(s.FirstName, s.LastName)
	return err
}

func (s *ConversationSpec) UnmarshalYAML(n *yaml.Node) error {
	type plain ConversationSpec
	return track(n, (*plain)(s), &s.keys)
}

// Parse reads a YAML or JSON workspace document.
func Parse(data []byte) (*File, error) {
	var f File
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f); err != nil {
		return nil, &Error{Problems: []string{"the file is not valid YAML or JSON: " + strings.TrimPrefix(err.Error(), "yaml: ")}}
	}
	return &f, nil
}

// Error lists every problem found in a file, each prefixed with its path.
type Error struct {
	Problems []string
}

func (e *Error) Error() string {
	return "invalid workspace file:\n  " + strings.Join(e.Problems, "\n  ")
}

// ParseDuration reads "15m", "2h", "1h30m" and also days ("1d").
var ParseDuration = clock.ParseDuration

func boolOr(b *bool, def bool) bool {
	if b == nil {
		return def
	}
	return *b
}
