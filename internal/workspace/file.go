// Package workspace reads, validates and applies workspace files: the
// document (YAML or JSON) that provisions an account and everything in it
// (decisions.md §6). The same code runs behind `frontdesk workspace apply`
// and `PUT /api/v2/admin/workspaces/{slug}`. A file is validated as a whole
// before anything is written, applied in one transaction, and matched by each
// object's `key`, so applying it twice changes nothing the second time.
package workspace

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

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
	Services        []ServiceSpec      `yaml:"services" json:"services"`
	Notifications   *Notifications     `yaml:"notifications" json:"notifications"`
	Waitlists       []WaitlistSpec     `yaml:"waitlists" json:"waitlists"`
	Webhooks        []WebhookSpec      `yaml:"webhooks" json:"webhooks"`
	DispositionTags []ColoredSpec      `yaml:"disposition_tags" json:"disposition_tags"`
	Pipelines       []PipelineSpec     `yaml:"pipelines" json:"pipelines"`
	Clients         []ClientSpec       `yaml:"clients" json:"clients"`
	Conversations   []ConversationSpec `yaml:"conversations" json:"conversations"`
}

type AccountSpec struct {
	Slug          string `yaml:"slug"`
	Name          string `yaml:"name"`
	Timezone      string `yaml:"timezone"`
	DefaultRegion string `yaml:"default_region"`
}

type KeySpec struct {
	Key       string `yaml:"key"`
	Name      string `yaml:"name"`
	Value     string `yaml:"value"`
	ExpiresAt string `yaml:"expires_at"`
	Revoked   bool   `yaml:"revoked"`
}

type UserSpec struct {
	Key      string `yaml:"key"`
	Name     string `yaml:"name"`
	Email    string `yaml:"email"`
	Password string `yaml:"password"`
	Active   *bool  `yaml:"active"`
}

type NamedSpec struct {
	Key  string `yaml:"key"`
	Name string `yaml:"name"`
}

type ColoredSpec struct {
	Key   string `yaml:"key"`
	Name  string `yaml:"name"`
	Color string `yaml:"color"`
}

type EventTypeSpec struct {
	Key    string `yaml:"key"`
	Name   string `yaml:"name"`
	Color  string `yaml:"color"`
	Active *bool  `yaml:"active"`
}

type ProfessionalSpec struct {
	Key          string              `yaml:"key"`
	Name         string              `yaml:"name"`
	Active       *bool               `yaml:"active"`
	WorkingHours map[string][]string `yaml:"working_hours"`
	TimeOff      []TimeOffSpec       `yaml:"time_off"`
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
}

// Notifications are the calendar's own settings for booking messages.
type Notifications struct {
	ConfirmationRequest bool     `yaml:"confirmation_request" json:"confirmation_request"`
	Reminders           []string `yaml:"reminders" json:"reminders"`
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
}

type WebhookSpec struct {
	Key    string   `yaml:"key"`
	URL    string   `yaml:"url"`
	Events []string `yaml:"events"`
	Secret string   `yaml:"secret"`
	Active *bool    `yaml:"active"`
}

type PipelineSpec struct {
	Key         string          `yaml:"key"`
	Name        string          `yaml:"name"`
	Description *string         `yaml:"description"`
	Status      string          `yaml:"status"`
	Stages      []StageSpec     `yaml:"stages"`
	InputNodes  []InputNodeSpec `yaml:"input_nodes"`
}

type StageSpec struct {
	Key            string           `yaml:"key"`
	Name           string           `yaml:"name"`
	StageType      string           `yaml:"stage_type"`
	Color          string           `yaml:"color"`
	EntryPoint     bool             `yaml:"entry_point"`
	AllowedTargets *[]string        `yaml:"allowed_targets"`
	Automations    []AutomationSpec `yaml:"automations"`
}

// AutomationSpec is one on-arrival automation of a stage.
type AutomationSpec struct {
	Kind     string         `yaml:"kind" json:"kind"`
	Template string         `yaml:"template,omitempty" json:"template,omitempty"`
	Steps    []SequenceStep `yaml:"steps,omitempty" json:"steps,omitempty"`
	URL      string         `yaml:"url,omitempty" json:"url,omitempty"`
	Secret   string         `yaml:"secret,omitempty" json:"secret,omitempty"`
}

type SequenceStep struct {
	After    string `yaml:"after" json:"after"`
	Template string `yaml:"template" json:"template"`
}

type InputNodeSpec struct {
	Key              string          `yaml:"key"`
	UUID             string          `yaml:"uuid"`
	Name             string          `yaml:"name"`
	Type             string          `yaml:"type"`
	Active           *bool           `yaml:"active"`
	TargetStage      string          `yaml:"target_stage"`
	DefaultLeadValue float64         `yaml:"default_lead_value"`
	Assignment       *AssignmentSpec `yaml:"assignment"`
}

type AssignmentSpec struct {
	Strategy string   `yaml:"strategy"`
	Pool     []string `yaml:"pool"`
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
}

// MessageSpec is the message shape of the workspace file, also used by the
// admin append route and `frontdesk chat import`.
type MessageSpec struct {
	From        string     `yaml:"from" json:"from"`
	Agent       string     `yaml:"agent" json:"agent"`
	User        string     `yaml:"user" json:"user"`
	Content     string     `yaml:"content" json:"content"`
	Timestamp   string     `yaml:"timestamp" json:"timestamp"`
	MessageType string     `yaml:"message_type" json:"message_type"`
	Media       *MediaSpec `yaml:"media" json:"media"`
}

// MediaSpec is media metadata; files themselves are never stored or served.
type MediaSpec struct {
	Kind     string  `yaml:"kind" json:"kind"`
	Mime     string  `yaml:"mime" json:"mime"`
	Filename string  `yaml:"filename" json:"filename"`
	Caption  *string `yaml:"caption" json:"caption"`
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
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if d, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(d)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("invalid duration %q", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("invalid duration %q", s)
	}
	return d, nil
}

func boolOr(b *bool, def bool) bool {
	if b == nil {
		return def
	}
	return *b
}
