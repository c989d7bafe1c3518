package workspace

import (
	"context"
	"fmt"

	"github.com/frontdesk/frontdesk/internal/pagesettings"
	"gopkg.in/yaml.v3"
)

// BookingPageSpec is the file's booking_page (docs/patient-api.md): the
// patients' booking page and API of the account. Keys the file leaves out
// keep their stored value; the page is off until enabled is true.
type BookingPageSpec struct {
	Enabled      bool     `yaml:"enabled" json:"enabled"`
	VerifyPhone  bool     `yaml:"verify_phone" json:"verify_phone"`
	EmbedOrigins []string `yaml:"embed_origins" json:"embed_origins"`
	Services     []string `yaml:"services" json:"services"`
	keys         present  // the keys the file gave
}

func (s *BookingPageSpec) UnmarshalYAML(n *yaml.Node) error {
	type plain BookingPageSpec
	return track(n, (*plain)(s), &s.keys)
}

// bookingPage checks the origins (pagesettings.CheckOrigin, the rule every
// door applies) and that every service named is one of the account's.
func (c *checker) bookingPage(b *BookingPageSpec, services map[string]bool) {
	if b == nil {
		return
	}
	if len(b.EmbedOrigins) > pagesettings.MaxEmbedOrigins {
		c.addf("booking_page.embed_origins", "at most %d origins", pagesettings.MaxEmbedOrigins)
	}
	for i, o := range b.EmbedOrigins {
		if _, err := pagesettings.CheckOrigin(o); err != nil {
			c.refusal(fmt.Sprintf("booking_page.embed_origins[%d]", i), err)
		}
	}
	for i, k := range b.Services {
		c.ref(fmt.Sprintf("booking_page.services[%d]", i), k, services, "service")
	}
}

// bookingPage writes the settings the file gives over the stored ones.
func (ap *applier) bookingPage(ctx context.Context) error {
	b := ap.f.BookingPage
	if b == nil {
		return nil
	}
	cur, err := pagesettings.Load(ctx, ap.tx, ap.acct)
	if err != nil {
		return err
	}
	if b.keys.has("enabled") {
		cur.Enabled = b.Enabled
	}
	if b.keys.has("verify_phone") {
		cur.VerifyPhone = b.VerifyPhone
	}
	if b.keys.has("embed_origins") {
		cur.EmbedOrigins = b.EmbedOrigins
	}
	if b.keys.has("services") {
		cur.Services = b.Services
	}
	return pagesettings.Save(ctx, ap.tx, ap.acct, cur)
}
