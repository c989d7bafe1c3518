package workspace

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/jobs"
	"github.com/frontdesk/frontdesk/internal/outbound"
	"github.com/frontdesk/frontdesk/internal/phone"
	"github.com/frontdesk/frontdesk/internal/waitlist"
)

// Enumerations of the file format.
var (
	ConversationStatuses = []string{"new", "ai_handling", "human_handling", "resolved", "expired"}
	Directions           = []string{"inbound", "outbound"}
	Sentiments           = []string{"positive", "neutral", "negative"}
	SenderKinds          = []string{"client", "ai_agent", "user", "business_app"}
	NodeTypes            = []string{"api", "form", "manual", "import"}
	Strategies           = []string{"none", "round_robin", "least_loaded"}
	AutomationKinds      = []string{"message", "sequence", "webhook"}
	Weekdays             = []string{"mon", "tue", "wed", "thu", "fri", "sat", "sun"}
	WebhookEvents        = jobs.EventTypes
)

var (
	slugRE  = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)
	keyRE   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$`)
	colorRE = regexp.MustCompile(`^#[0-9A-Fa-f]{6}$|^#[0-9A-Fa-f]{3}$`)
	hoursRE = regexp.MustCompile(`^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-4]):([0-5]\d)$`)
	uuidRE  = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
)

// Known holds the keys an account already has, so a file may refer to
// objects applied by an earlier file (apply never deletes).
// It also tells which objects exist, so a field that a new object needs
// may be left out for an existing one.
type Known struct {
	Users, Agents, Professionals, EventTypes, Services, Dispositions, Pipelines map[string]bool
	Waitlists, Webhooks, Clients, Conversations, Channels, Resources            map[string]bool
	Stages                                                                      map[string]map[string]bool // pipeline key -> stage keys
	InputNodes                                                                  map[string]map[string]bool // pipeline key -> node keys
	// DefaultRegion is the stored account's, for phones of a file that
	// does not give it.
	DefaultRegion string
	// Targets is the server's outbound policy: webhook URLs and channel
	// addresses must pass it (docs/api-notes.md, "Outbound targets"). The
	// zero value allows public targets only.
	Targets outbound.Policy
}

func union(a, b map[string]bool) map[string]bool {
	for k := range b {
		a[k] = true
	}
	return a
}

// Validate checks the whole file and returns every problem with its path.
// known may be nil (a new account).
func Validate(f *File, known *Known) error {
	if known == nil {
		known = &Known{}
	}
	c := &checker{}
	nulStrings(c, "", reflect.ValueOf(f).Elem())
	a := f.Account
	switch {
	case a.Slug == "":
		c.addf("account.slug", "is required")
	case !slugRE.MatchString(a.Slug):
		c.addf("account.slug", "%q must be lower-case letters, digits, '-' or '_'", a.Slug)
	}
	if a.Timezone != "" {
		if _, err := time.LoadLocation(a.Timezone); err != nil || a.Timezone == "Local" {
			c.addf("account.timezone", "%q is not an IANA time zone", a.Timezone)
		}
	}
	region := a.DefaultRegion
	if !a.keys.has("default_region") {
		region = known.DefaultRegion
	}
	if a.DefaultRegion != "" && !phone.ValidRegion(a.DefaultRegion) {
		c.addf("account.default_region", "%q is not an ISO 3166 alpha-2 region", a.DefaultRegion)
	}
	c.limits(a.Limits)
	c.bookingRules("account.booking_rules", a.BookingRules)
	c.retention("account.retention", a.Retention)
	c.channels(f, known)

	c.keys("api_keys", len(f.APIKeys), func(i int) string { return f.APIKeys[i].Key })
	for i, k := range f.APIKeys {
		p := fmt.Sprintf("api_keys[%d]", i)
		if _, err := account.KeyName(k.Name); err != nil {
			c.refusal(p+".name", err)
		}
		if k.Value != "" && !account.ValidKeyValue(k.Value) {
			c.addf(p+".value", "must start with %q and have at least %d characters", account.KeyPrefix, account.MinKeyLength)
		}
		c.timestamp(p+".expires_at", k.ExpiresAt)
	}

	users := c.keys("users", len(f.Users), func(i int) string { return f.Users[i].Key })
	users = union(users, known.Users)
	for i, u := range f.Users {
		c.requiredNew(fmt.Sprintf("users[%d].name", i), u.Name, u.keys.has("name"), known.Users[u.Key], "user")
		email := u.Email
		c.email(fmt.Sprintf("users[%d].email", i), &email)
		if u.Password != "" && len(u.Password) < 8 {
			c.addf(fmt.Sprintf("users[%d].password", i), "must have at least 8 characters")
		}
		if u.Role != "" {
			c.oneOf(fmt.Sprintf("users[%d].role", i), u.Role, []string{"owner", "staff"})
		}
		if u.Language != "" {
			c.oneOf(fmt.Sprintf("users[%d].language", i), u.Language, []string{"es", "en"})
		}
	}
	agents := c.keys("ai_agents", len(f.AIAgents), func(i int) string { return f.AIAgents[i].Key })
	agents = union(agents, known.Agents)
	for i, ag := range f.AIAgents {
		c.requiredNew(fmt.Sprintf("ai_agents[%d].name", i), ag.Name, ag.keys.has("name"), known.Agents[ag.Key], "AI agent")
	}
	types := c.keys("event_types", len(f.EventTypes), func(i int) string { return f.EventTypes[i].Key })
	types = union(types, known.EventTypes)
	for i, et := range f.EventTypes {
		c.requiredNew(fmt.Sprintf("event_types[%d].name", i), et.Name, et.keys.has("name"), known.EventTypes[et.Key], "event type")
		c.color(fmt.Sprintf("event_types[%d].color", i), et.Color)
	}
	pros := c.keys("professionals", len(f.Professionals), func(i int) string { return f.Professionals[i].Key })
	pros = union(pros, known.Professionals)
	for i, u := range f.Users {
		if u.Professional != nil {
			c.ref(fmt.Sprintf("users[%d].professional", i), *u.Professional, pros, "professional")
		}
	}
	for i, p := range f.Professionals {
		path := fmt.Sprintf("professionals[%d]", i)
		c.requiredNew(path+".name", p.Name, p.keys.has("name"), known.Professionals[p.Key], "professional")
		for day, spans := range p.WorkingHours {
			c.oneOf(path+".working_hours."+day, day, Weekdays)
			for j, span := range spans {
				m := hoursRE.FindStringSubmatch(span)
				if m == nil || m[1]+m[2] >= m[3]+m[4] {
					c.addf(fmt.Sprintf("%s.working_hours.%s[%d]", path, day, j), "%q is not a range like 09:00-13:00", span)
				}
			}
		}
		for j, off := range p.TimeOff {
			tp := fmt.Sprintf("%s.time_off[%d]", path, j)
			c.required(tp+".from", off.From)
			c.required(tp+".to", off.To)
			c.timestamp(tp+".from", off.From)
			c.timestamp(tp+".to", off.To)
		}
	}
	services := c.keys("services", len(f.Services), func(i int) string { return f.Services[i].Key })
	services = union(services, known.Services)
	for i, s := range f.Services {
		path := fmt.Sprintf("services[%d]", i)
		c.requiredNew(path+".name", s.Name, s.keys.has("name"), known.Services[s.Key], "service")
		c.color(path+".color", s.Color)
		c.bookingRules(path+".booking_rules", s.BookingRules)
		if s.DefaultDurationMinutes < 0 || s.DefaultDurationMinutes > 24*60 {
			c.addf(path+".default_duration_minutes", "must be between 1 and 1440")
		}
		for j, k := range s.Professionals {
			c.ref(fmt.Sprintf("%s.professionals[%d]", path, j), k, pros, "professional")
		}
		for j, k := range s.EventTypes {
			c.ref(fmt.Sprintf("%s.event_types[%d]", path, j), k, types, "event type")
		}
	}
	c.resources(f, known)
	c.bookingPage(f.BookingPage, services)
	if n := f.Notifications; n != nil {
		before := len(c.problems)
		for i, r := range n.Reminders {
			c.duration(fmt.Sprintf("notifications.reminders[%d]", i), r, jobs.ReminderLead)
		}
		// The dashboard's rules for the list as a whole (no two equal, at
		// most jobs.MaxReminders).
		var e *errs.Error
		if _, err := jobs.NormalizeReminders(n.Reminders); errors.As(err, &e) && len(c.problems) == before {
			c.addf("notifications.reminders", "%s", e.Message)
		}
	}
	c.keys("waitlists", len(f.Waitlists), func(i int) string { return f.Waitlists[i].Key })
	for i, w := range f.Waitlists {
		path := fmt.Sprintf("waitlists[%d]", i)
		c.requiredNew(path+".name", w.Name, w.keys.has("name"), known.Waitlists[w.Key], "waitlist")
		if w.HorizonDays != nil && (*w.HorizonDays < 1 || *w.HorizonDays > 365) {
			c.addf(path+".horizon_days", "must be between 1 and 365")
		}
		if w.MaxOffers != nil && *w.MaxOffers < 1 {
			c.addf(path+".max_offers", "must be at least 1")
		}
		c.duration(path+".run_every", w.RunEvery, waitlist.RunEvery)
		c.duration(path+".seat_ttl", w.SeatTTL, waitlist.SeatTTL)
		for j, k := range w.Services {
			c.ref(fmt.Sprintf("%s.services[%d]", path, j), k, services, "service")
		}
	}
	c.keys("webhooks", len(f.Webhooks), func(i int) string { return f.Webhooks[i].Key })
	for i, w := range f.Webhooks {
		path := fmt.Sprintf("webhooks[%d]", i)
		if w.keys.has("url") || !known.Webhooks[w.Key] {
			c.webhookURL(path+".url", w.URL, known.Targets)
		}
		c.secret(path+".secret", w.Secret)
		for j, e := range w.Events {
			c.oneOf(fmt.Sprintf("%s.events[%d]", path, j), e, WebhookEvents)
		}
	}
	dispositions := c.keys("disposition_tags", len(f.DispositionTags), func(i int) string { return f.DispositionTags[i].Key })
	dispositions = union(dispositions, known.Dispositions)
	for i, d := range f.DispositionTags {
		c.requiredNew(fmt.Sprintf("disposition_tags[%d].name", i), d.Name, d.keys.has("name"), known.Dispositions[d.Key], "disposition tag")
		c.color(fmt.Sprintf("disposition_tags[%d].color", i), d.Color)
	}

	pipelines := c.keys("pipelines", len(f.Pipelines), func(i int) string { return f.Pipelines[i].Key })
	pipelines = union(pipelines, known.Pipelines)
	stagesOf := map[string]map[string]bool{}
	nodeUUIDs := map[string]string{}
	for i, p := range f.Pipelines {
		path := fmt.Sprintf("pipelines[%d]", i)
		c.requiredNew(path+".name", p.Name, p.keys.has("name"), known.Pipelines[p.Key], "pipeline")
		stages := c.keys(path+".stages", len(p.Stages), func(j int) string { return p.Stages[j].Key })
		stagesOf[p.Key] = union(stages, known.Stages[p.Key])
		for j, s := range p.Stages {
			sp := fmt.Sprintf("%s.stages[%d]", path, j)
			c.requiredNew(sp+".name", s.Name, s.keys.has("name"), known.Stages[p.Key][s.Key], "stage")
			c.color(sp+".color", s.Color)
			if s.AllowedTargets != nil {
				for k, t := range *s.AllowedTargets {
					c.ref(fmt.Sprintf("%s.allowed_targets[%d]", sp, k), t, stages, "stage")
				}
			}
			for k, au := range s.Automations {
				ap := fmt.Sprintf("%s.automations[%d]", sp, k)
				c.oneOf(ap+".kind", au.Kind, AutomationKinds)
				switch au.Kind {
				case "message":
					c.required(ap+".template", au.Template)
				case "sequence":
					if len(au.Steps) == 0 {
						c.addf(ap+".steps", "a sequence needs at least one step")
					}
					for m, st := range au.Steps {
						c.duration(fmt.Sprintf("%s.steps[%d].after", ap, m), st.After, jobs.SequenceDelay)
						c.required(fmt.Sprintf("%s.steps[%d].template", ap, m), st.Template)
					}
				case "webhook":
					c.webhookURL(ap+".url", au.URL, known.Targets)
					c.secret(ap+".secret", au.Secret)
				}
			}
		}
		c.keys(path+".input_nodes", len(p.InputNodes), func(j int) string { return p.InputNodes[j].Key })
		for j, n := range p.InputNodes {
			np := fmt.Sprintf("%s.input_nodes[%d]", path, j)
			c.requiredNew(np+".name", n.Name, n.keys.has("name"), known.InputNodes[p.Key][n.Key], "input node")
			if n.Type != "" {
				c.oneOf(np+".type", n.Type, NodeTypes)
			}
			if n.UUID != "" {
				u := strings.ToLower(n.UUID)
				if !uuidRE.MatchString(u) {
					c.addf(np+".uuid", "%q is not a UUID", n.UUID)
				} else if other, dup := nodeUUIDs[u]; dup {
					c.addf(np+".uuid", "already used by %s", other)
				} else {
					nodeUUIDs[u] = np
				}
			}
			if n.TargetStage != "" {
				c.ref(np+".target_stage", n.TargetStage, stages, "stage")
			}
			if n.DefaultLeadValue < 0 {
				c.addf(np+".default_lead_value", "must not be negative")
			}
			if a := n.Assignment; a != nil {
				if a.Strategy != "" {
					c.oneOf(np+".assignment.strategy", a.Strategy, Strategies)
				}
				for k, u := range a.Pool {
					c.ref(fmt.Sprintf("%s.assignment.pool[%d]", np, k), u, users, "user")
				}
				// An existing node given only a strategy keeps its stored pool.
				poolGiven := a.keys.has("pool") || !known.InputNodes[p.Key][n.Key]
				if (a.Strategy == "round_robin" || a.Strategy == "least_loaded") && len(a.Pool) == 0 && poolGiven {
					c.addf(np+".assignment.pool", "strategy %s needs at least one user", a.Strategy)
				}
			}
		}
		if p.Status == "" {
			continue
		}
		if !slugRE.MatchString(p.Status) {
			c.addf(path+".status", "%q is not a status like active or archived", p.Status)
		}
	}

	c.keys("clients", len(f.Clients), func(i int) string { return f.Clients[i].Key })
	phones := map[string]string{}
	for i, cl := range f.Clients {
		path := fmt.Sprintf("clients[%d]", i)
		if cl.Phone != "" {
			n, err := phone.ParseWithRegion(cl.Phone, region)
			if err != nil {
				c.addf(path+".phone", "%q: %v", cl.Phone, err)
			} else if other, dup := phones[n.National]; dup {
				c.addf(path+".phone", "the national number of %q is already used by %s", cl.Phone, other)
			} else {
				phones[n.National] = path
			}
		}
		if _, _, ok := contact.Names(cl.FirstName, cl.LastName); !ok {
			c.addf(path, "a name may have at most %d characters", contact.MaxNameLen)
		}
		if !known.Clients[cl.Key] && cl.Phone == "" && (cl.Email == nil || *cl.Email == "") && cl.FirstName == "" && cl.LastName == "" {
			c.addf(path, "a client needs a name, a phone or an e-mail")
		}
		c.email(path+".email", cl.Email)
		if _, err := contact.NationalID(cl.NationalID); err != nil {
			c.addf(path+".national_id", "%q is not a DNI or NIE (8 digits and a letter, or X/Y/Z, 7 digits and a letter, with the right control letter)", cl.NationalID)
		}
		if _, _, err := contact.Insurance(cl.Insurer, cl.InsurancePolicy); err != nil {
			c.addf(path, "insurer may have at most %d characters and insurance_policy at most %d", contact.MaxInsurerLen, contact.MaxPolicyLen)
		}
		if cl.Timezone != "" {
			if _, err := time.LoadLocation(cl.Timezone); err != nil {
				c.addf(path+".timezone", "%q is not an IANA time zone", cl.Timezone)
			}
		}
		for k := range cl.Data {
			if len(k) > 100 || k == "" {
				c.addf(path+".data", "key %q must have 1 to 100 characters", k)
			}
		}
		// YAML allows what JSON cannot hold (the data is stored as JSON).
		if _, err := json.Marshal(cl.Data); err != nil {
			c.addf(path+".data", "cannot be stored as JSON: nested keys must be strings and numbers finite")
		}
		for j, t := range cl.Tags {
			c.required(fmt.Sprintf("%s.tags[%d]", path, j), t)
		}
		seen := map[string]bool{}
		for j, pl := range cl.Pipelines {
			pp := fmt.Sprintf("%s.pipelines[%d]", path, j)
			c.ref(pp+".pipeline", pl.Pipeline, pipelines, "pipeline")
			if pipelines[pl.Pipeline] {
				if pl.Stage != "" {
					st := stagesOf[pl.Pipeline]
					if st == nil {
						st = known.Stages[pl.Pipeline]
					}
					c.ref(pp+".stage", pl.Stage, st, "stage")
				}
				if seen[pl.Pipeline] {
					c.addf(pp+".pipeline", "the client is already placed on %q", pl.Pipeline)
				}
				seen[pl.Pipeline] = true
			}
		}
	}

	c.keys("conversations", len(f.Conversations), func(i int) string { return f.Conversations[i].Key })
	for i, cv := range f.Conversations {
		checkConversation(c, fmt.Sprintf("conversations[%d]", i), cv, known.Conversations[cv.Key], region, dispositions, agents, users)
	}
	if len(c.problems) > 0 {
		return &Error{Problems: c.problems}
	}
	return nil
}

// nulStrings reports every string of the file that holds a NUL character
// (YAML "\0", JSON "\u0000"): PostgreSQL cannot store one, and no field
// needs it.
func nulStrings(c *checker, path string, v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			nulStrings(c, path, v.Elem())
		}
	case reflect.String:
		if strings.IndexByte(v.String(), 0) >= 0 {
			c.addf(path, "must not contain the NUL character")
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if !v.Type().Field(i).IsExported() {
				continue
			}
			name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("yaml"), ",")
			if path != "" {
				name = path + "." + name
			}
			nulStrings(c, name, v.Field(i))
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			nulStrings(c, fmt.Sprintf("%s[%d]", path, i), v.Index(i))
		}
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		for _, k := range keys {
			at := fmt.Sprintf("%s.%v", path, k)
			nulStrings(c, at, k)
			nulStrings(c, at, v.MapIndex(k))
		}
	}
}

// checkConversation validates one conversation (shared with chat import).
//
// The customer's number must read as a phone (with the account's region for
// national input): every phone in every response is E.164, and a number
// that cannot be normalised could never be matched to a client either.
func checkConversation(c *checker, path string, cv ConversationSpec, exists bool, region string, dispositions, agents, users map[string]bool) {
	c.requiredNew(path+".customer_phone_number", cv.CustomerPhoneNumber, cv.keys.has("customer_phone_number"), exists, "conversation")
	if cv.CustomerPhoneNumber != "" {
		if _, err := phone.ParseWithRegion(cv.CustomerPhoneNumber, region); err != nil {
			c.addf(path+".customer_phone_number", "%q: %v", cv.CustomerPhoneNumber, err)
		}
	}
	if cv.Status != "" {
		c.oneOf(path+".status", cv.Status, ConversationStatuses)
	}
	if cv.Direction != "" {
		c.oneOf(path+".direction", cv.Direction, Directions)
	}
	if cv.Sentiment != "" {
		c.oneOf(path+".sentiment", cv.Sentiment, Sentiments)
	}
	if cv.Disposition != "" {
		c.ref(path+".disposition", cv.Disposition, dispositions, "disposition tag")
	}
	c.timestamp(path+".created_at", cv.CreatedAt)
	for j, m := range cv.Messages {
		checkMessage(c, fmt.Sprintf("%s.messages[%d]", path, j), m, agents, users)
	}
}

func checkMessage(c *checker, mp string, m MessageSpec, agents, users map[string]bool) {
	c.oneOf(mp+".from", m.From, SenderKinds)
	switch m.From {
	case "ai_agent":
		c.ref(mp+".agent", m.Agent, agents, "AI agent")
	case "user":
		c.ref(mp+".user", m.User, users, "user")
	}
	c.timestamp(mp+".timestamp", m.Timestamp)
}

// IsReferenceProblem reports whether a problem is one an earlier apply might
// satisfy: an unknown reference, or a field left out that only a new object
// needs (validation without the store cannot tell new from existing).
func IsReferenceProblem(p string) bool {
	return strings.Contains(p, ": unknown ") || strings.Contains(p, ": is required for a new ")
}
