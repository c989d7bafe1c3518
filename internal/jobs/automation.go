package jobs

import (
	"time"

	"github.com/frontdesk/frontdesk/internal/clock"
)

// SequenceDelay is how long a sequence step may wait after the previous
// one: at least a minute (steps are separate messages, not a burst) and at
// most a year (a yearly check-up).
var SequenceDelay = clock.Range{Min: time.Minute, Max: 365 * 24 * time.Hour}

// Automation is one on-arrival automation of a stage, as stages store it
// (JSON in stages.automations) and as workspace files write it (the YAML
// keys are the same): a message now, a sequence of delayed messages, or a
// webhook call. The worker runs them; the workspace package maps its file
// onto this type.
type Automation struct {
	Kind     string         `yaml:"kind" json:"kind"`
	Template string         `yaml:"template,omitempty" json:"template,omitempty"`
	Steps    []SequenceStep `yaml:"steps,omitempty" json:"steps,omitempty"`
	URL      string         `yaml:"url,omitempty" json:"url,omitempty"`
	Secret   string         `yaml:"secret,omitempty" json:"secret,omitempty"`
}

// SequenceStep is one delayed message of a sequence: After is a duration
// from the previous step ("1h", "2d"; clock.ParseDuration) within
// SequenceDelay.
type SequenceStep struct {
	After    string `yaml:"after" json:"after"`
	Template string `yaml:"template" json:"template"`
}

// NotificationSettings are the calendar's own settings for booking
// messages, as accounts store them (JSON in accounts.notifications): a
// confirmation request at booking, and a reminder at each offset before the
// start ("24h", "2h").
type NotificationSettings struct {
	ConfirmationRequest bool     `json:"confirmation_request"`
	Reminders           []string `json:"reminders"`
}
