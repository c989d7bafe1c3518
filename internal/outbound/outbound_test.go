package outbound_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/outbound"
)

func TestCheckURL(t *testing.T) {
	for _, test := range []struct {
		url             string
		denied, private string // "" allowed; else a fragment of the refusal
	}{
		{"https://hooks.example.com/x", "", ""},
		{"http://api.twilio.com", "", ""},
		{"https://93.184.216.34/hook", "", ""},
		{"https://[2606:4700::1111]/", "", ""},
		{"https://münchen.example/", "", ""},
		{"http://169.254.169.254/latest/meta-data/", "link-local", "link-local"},
		{"http://[fe80::1]/", "link-local", "link-local"},
		{"http://[fe80::1%25eth0]/", "link-local", "link-local"},
		{"http://127.0.0.1:8080/api/v2/admin/workspaces/acme", "loopback", ""},
		{"http://localhost/", "loopback", ""},
		{"http://api.localhost/", "loopback", ""},
		{"http://[::1]/", "loopback", ""},
		{"http://[::ffff:127.0.0.1]/", "loopback", ""},
		{"http://10.1.2.3/", "private", ""},
		{"http://172.16.0.1/", "private", ""},
		{"http://192.168.1.1/", "private", ""},
		{"http://[fd00::1]/", "private", ""},
		{"http://0.0.0.0/", "unspecified", "unspecified"},
		{"http://0.1.2.3/", "unspecified", "unspecified"},
		{"http://[::]/", "unspecified", "unspecified"},
		{"http://224.0.0.1/", "multicast", "multicast"},
		{"http://255.255.255.255/", "broadcast", "broadcast"},
		{"http://2130706433/", "not a host name", "not a host name"},
		{"http://0x7f.1/", "not a host name", "not a host name"},
		{"http://127.1/", "not a host name", "not a host name"},
		{"file:///etc/passwd", "http(s) URL", "http(s) URL"},
		{"gopher://x.example/", "http(s) URL", "http(s) URL"},
		{"not a url", "http(s) URL", "http(s) URL"},
		{"https://", "http(s) URL", "http(s) URL"},
		{"http://exa mple.com/", "http(s) URL", "http(s) URL"},
		{"http://x.example:99999/", "port", "port"},
		{"http://a..b/", "valid host", "valid host"},
	} {
		t.Run(test.url, func(t *testing.T) {
			for _, c := range []struct {
				p    outbound.Policy
				want string
			}{{outbound.Policy{}, test.denied}, {outbound.Policy{AllowPrivate: true}, test.private}} {
				err := c.p.CheckURL(test.url)
				switch {
				case c.want == "" && err != nil:
					t.Errorf("%+v: refused: %v", c.p, err)
				case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
					t.Errorf("%+v: got %v, want a refusal with %q", c.p, err, c.want)
				}
			}
		})
	}
}

func TestFromEnv(t *testing.T) {
	for v, want := range map[string]bool{"true": true, "1": true, "TRUE": true, "": false, "false": false, "yes please": false} {
		if got := outbound.FromEnv(func(string) string { return v }).AllowPrivate; got != want {
			t.Errorf("%q: %v", v, got)
		}
	}
}

// The client refuses at connect time what resolution gives, follows no
// redirect, and says only "target not allowed".
func TestHTTPClient(t *testing.T) {
	var hits int
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits++ }))
	defer target.Close()
	redirect := httptest.NewServer(http.RedirectHandler(target.URL, http.StatusTemporaryRedirect))
	defer redirect.Close()

	// "localhost" passes no name check at connect time: the resolved
	// 127.0.0.1 (or ::1) is what is refused.
	local := strings.Replace(target.URL, "127.0.0.1", "localhost", 1)
	for _, u := range []string{target.URL, local} {
		_, err := outbound.Policy{}.HTTPClient(time.Second).Get(u)
		if !errors.Is(err, outbound.ErrNotAllowed) || outbound.Describe(err) != "target not allowed" {
			t.Fatalf("%s: %v (%q)", u, err, outbound.Describe(err))
		}
	}
	if hits != 0 {
		t.Fatal("a refused target was reached")
	}
	c := outbound.Policy{AllowPrivate: true}.HTTPClient(time.Second)
	resp, err := c.Post(redirect.URL, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTemporaryRedirect || hits != 0 {
		t.Fatalf("redirect followed: %d, %d hits", resp.StatusCode, hits)
	}
	// Link-local stays refused even when private targets are allowed.
	if err := (outbound.Policy{AllowPrivate: true}).CheckAddr(netip.MustParseAddr("169.254.169.254")); err == nil {
		t.Fatal("link-local allowed")
	}
}

func TestDescribe(t *testing.T) {
	c := outbound.Policy{AllowPrivate: true}.HTTPClient(200 * time.Millisecond)
	// A closed port on loopback.
	srv := httptest.NewServer(http.NotFoundHandler())
	addr := srv.URL
	srv.Close()
	_, err := c.Get(addr)
	if got := outbound.Describe(err); got != "could not connect" {
		t.Fatalf("closed port: %q (%v)", got, err)
	}
	if got := outbound.Describe(context.DeadlineExceeded); got != "timed out" {
		t.Fatal(got)
	}
	if got := outbound.Cut(strings.Repeat("ñ", 400), 300); len([]rune(got)) != 300 {
		t.Fatal(len([]rune(got)))
	}
}
