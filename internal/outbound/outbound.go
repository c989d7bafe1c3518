// Package outbound decides where Frontdesk may connect on an account's
// behalf: webhook URLs, automation webhooks, a channel's API address and
// an SMTP host (docs/api-notes.md, "Outbound targets"). A target is checked
// twice: when it is saved (every door calls CheckURL or CheckHost and
// answers VALIDATION_ERROR naming the field) and when it is connected to
// (the Dialer checks the address DNS resolved to, so a name that later
// resolves inside the network is refused too). Clients built here never
// follow redirects and never use a proxy from the environment.
//
// It imports nothing of Frontdesk: every package that connects out uses it.
package outbound

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// EnvAllowPrivate is the server setting that allows loopback and private
// addresses (tests, on-premises relays).
const EnvAllowPrivate = "FRONTDESK_ALLOW_PRIVATE_TARGETS"

// ErrNotAllowed is the failure of a connection to a refused address; an
// attempt that meets it fails with exactly this text.
var ErrNotAllowed = errors.New("target not allowed")

// Policy says which addresses are allowed. Its zero value is production's:
// only public addresses.
type Policy struct {
	// AllowPrivate allows loopback and private (RFC 1918, fc00::/7)
	// addresses. Link-local, unspecified, multicast and broadcast
	// addresses stay refused.
	AllowPrivate bool
}

// FromEnv reads EnvAllowPrivate ("true" or "1" allow; anything else, or
// unset, refuses).
func FromEnv(getenv func(string) string) Policy {
	if getenv == nil {
		return Policy{}
	}
	v := strings.ToLower(strings.TrimSpace(getenv(EnvAllowPrivate)))
	return Policy{AllowPrivate: v == "true" || v == "1"}
}

// CheckAddr reports why addr may not be connected to, or nil.
func (p Policy) CheckAddr(addr netip.Addr) error {
	addr = addr.Unmap()
	switch {
	case !addr.IsValid():
		return fmt.Errorf("is not an address")
	case addr.IsUnspecified() || (addr.Is4() && addr.As4()[0] == 0):
		return fmt.Errorf("is an unspecified address")
	case addr.IsMulticast():
		return fmt.Errorf("is a multicast address")
	case addr.IsLinkLocalUnicast():
		return fmt.Errorf("is a link-local address")
	case addr.Is4() && addr.As4() == [4]byte{255, 255, 255, 255}:
		return fmt.Errorf("is the broadcast address")
	case p.AllowPrivate:
		return nil
	case addr.IsLoopback():
		return fmt.Errorf("is a loopback address")
	case addr.IsPrivate():
		return fmt.Errorf("is a private address")
	}
	return nil
}

// CheckHost reports why host (a name or an IP literal, without a port)
// may not be a target. Names are not resolved here (that happens when
// connecting), except the names that always mean this machine.
func (p Policy) CheckHost(host string) error {
	host = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSuffix(host, "]"), "["), ".")
	if host == "" {
		return fmt.Errorf("has no host")
	}
	if addr, err := netip.ParseAddr(host); err == nil {
		if addr.Zone() != "" {
			return fmt.Errorf("is a link-local address")
		}
		return p.CheckAddr(addr)
	}
	lower := strings.ToLower(host)
	if lower == "localhost" || strings.HasSuffix(lower, ".localhost") {
		return p.CheckAddr(netip.AddrFrom4([4]byte{127, 0, 0, 1}))
	}
	// A host whose last label is a number is an address in a form some
	// resolvers read (2130706433, 0x7f.1, 127.1), never a DNS name.
	labels := strings.Split(lower, ".")
	last := labels[len(labels)-1]
	if _, err := strconv.ParseUint(strings.TrimPrefix(last, "0x"), 16, 64); err == nil && isNumberish(last) {
		return fmt.Errorf("is not a host name or an IP address")
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || !validLabel(l) {
			return fmt.Errorf("is not a valid host name")
		}
	}
	return nil
}

func isNumberish(s string) bool {
	if strings.HasPrefix(s, "0x") {
		return true
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func validLabel(l string) bool {
	for _, r := range l {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r > 127) {
			return false
		}
	}
	return true
}

// CheckURL reports why raw may not be a target: it must be an absolute
// http or https URL whose host passes CheckHost.
func (p Policy) CheckURL(raw string) error {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" {
		return fmt.Errorf("is not an http(s) URL")
	}
	if port := u.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("has an invalid port")
		}
	}
	if err := p.CheckHost(u.Hostname()); err != nil {
		return fmt.Errorf("host %q %v", u.Hostname(), err)
	}
	return nil
}

// control refuses a connection whose resolved address is not allowed; it
// runs after DNS resolution, for every address tried.
func (p Policy) control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return ErrNotAllowed
	}
	if p.CheckAddr(ap.Addr()) != nil {
		return ErrNotAllowed
	}
	return nil
}

// Dialer returns a dialer that refuses addresses the policy does not allow.
func (p Policy) Dialer(timeout time.Duration) *net.Dialer {
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	return &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second, Control: p.control}
}

// DialContext is Dialer(timeout).DialContext, for clients that take a dial
// function (SMTP).
func (p Policy) DialContext(timeout time.Duration) func(ctx context.Context, network, address string) (net.Conn, error) {
	return p.Dialer(timeout).DialContext
}

// HTTPClient returns a client that dials through the policy, follows no
// redirect (a 3xx comes back as the answer, and callers treat it as a
// failed attempt) and ignores proxy settings from the environment (a proxy
// would connect to the target on the client's behalf, unchecked).
func (p Policy) HTTPClient(timeout time.Duration) *http.Client {
	if timeout <= 0 {
		timeout = 15 * time.Second
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil
	t.DialContext = p.Dialer(timeout).DialContext
	return &http.Client{
		Timeout:   timeout,
		Transport: t,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// Describe turns a failure to reach a target into a text a user may see:
// the refusal by this policy, a timeout or "could not connect", never the
// network's own words (which tell open ports from closed ones).
func Describe(err error) string {
	var dnsErr *net.DNSError
	var netErr net.Error
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrNotAllowed):
		return ErrNotAllowed.Error()
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.As(err, &dnsErr):
		return "could not resolve the host"
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()):
		return "timed out"
	}
	return "could not connect"
}

// Cut shortens a target's answer to what a user may see: at most max
// characters, cut at a character boundary.
func Cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	return string(r[:max])
}

// MaxShown is how much of a provider's error message a user may see.
const MaxShown = 300
