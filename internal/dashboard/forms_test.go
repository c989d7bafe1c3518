package dashboard

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/frontdesk/frontdesk/internal/contact"
)

func TestLocalPath(t *testing.T) {
	const host = "dash.example"
	for _, test := range []struct{ in, want string }{
		{"/app/", "/app/"},
		{"/app/clients?q=ana", "/app/clients?q=ana"},
		{"/app/waitlists?status=all#x", "/app/waitlists?status=all"},
		{"http://dash.example/app/keys", "/app/keys"},
		{"https://DASH.example/app/keys?x=1", "/app/keys?x=1"},
		{"/app/clients/../keys", "/app/keys"},
		{"/app/%2F%2Fevil.example", "/app/evil.example"},
		// The reported case and its relatives.
		{`/app/../\evil.example`, ""},
		{`/app/..\/evil.example`, ""},
		{`/\evil.example`, ""},
		{`/app/\evil.example`, ""},
		{"/app/%5cevil.example", ""},
		{"/app/%2e%2e/%5cevil.example", ""},
		{"/app/..%2f..%2fevil.example", ""},
		{"/app/../evil", ""},
		{"/app/../../evil.example", ""},
		{"/app/..", ""},
		{"/app", ""},
		{"//evil.example/app/", ""},
		{"///evil.example/app/", ""},
		{"https://evil.example/app/", ""},
		{"http://dash.example.evil.example/app/", ""},
		{"http://user@dash.example/app/", ""},
		{"javascript:alert(1)//app/", ""},
		{"app/keys", ""},
		{"", ""},
		{"/app/\t/evil", ""},
		{"/app/\r\nSet-Cookie: x=1", ""},
		{"/app/%0d%0aSet-Cookie:x", ""},
		{"/app/\x00", ""},
		{"/app/%00", ""},
		{"/app/\xff", ""},
		{"/app/\u0085", ""},
		{"/app/" + strings.Repeat("a", maxRedirectLen), ""},
		{"/application", ""},
	} {
		t.Run(test.in, func(t *testing.T) {
			if got := localPath(test.in, host); got != test.want {
				t.Errorf("localPath(%q) = %q, want %q", test.in, got, test.want)
			}
		})
	}
	// Without a host (next=), absolute URLs are refused whatever they name.
	if got := localPath("http://dash.example/app/keys", ""); got != "" {
		t.Errorf("no host: %q", got)
	}
}

// checkLocalPath is what any answer of localPath must satisfy, whatever
// the input: empty, or a clean /app/ path that no browser reads as
// another host.
func checkLocalPath(t *testing.T, in, got string) {
	t.Helper()
	if got == "" {
		return
	}
	u, err := url.Parse(got)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
		t.Fatalf("localPath(%q) = %q: not a relative path (%v)", in, got, err)
	}
	if !strings.HasPrefix(got, Prefix) || strings.HasPrefix(got, "//") || strings.ContainsAny(got, "\\") || !safeURLText(got) {
		t.Fatalf("localPath(%q) = %q: unsafe", in, got)
	}
	clean := path.Clean(u.Path)
	if strings.HasSuffix(u.Path, "/") && clean != "/" {
		clean += "/"
	}
	if clean != u.Path || !strings.HasPrefix(clean, Prefix) || !safeURLText(u.Path) {
		t.Fatalf("localPath(%q) = %q: path %q not clean under %s", in, got, u.Path, Prefix)
	}
	// What http.Redirect would send must still be the same path.
	rec := httptest.NewRecorder()
	http.Redirect(rec, httptest.NewRequest("POST", "/app/x", nil), got, http.StatusSeeOther)
	if loc := rec.Header().Get("Location"); !strings.HasPrefix(loc, Prefix) || strings.ContainsAny(loc, "\\") {
		t.Fatalf("localPath(%q) = %q: Location %q", in, got, loc)
	}
}

func FuzzLocalPath(f *testing.F) {
	for _, s := range []string{"/app/", "/app/clients?q=a", `/app/../\evil.example`, "//evil/app/", "http://h/app/k", "/app/%2e%2e/x"} {
		f.Add(s, "h")
	}
	f.Fuzz(func(t *testing.T, in, host string) {
		checkLocalPath(t, in, localPath(in, host))
		checkLocalPath(t, in, safeNext(in))
	})
}

// FuzzDecodeForm sends arbitrary query strings and bodies through the one
// form decoder and the value helpers: they never panic, and whatever the
// decoder lets through has no NUL byte and no invalid UTF-8.
func FuzzDecodeForm(f *testing.F) {
	f.Add("q=ana", "email=a%40b.test&password=x", "30", "2", "12.5")
	f.Add("q=%00", "name=%FF", "x", "9223372036854775807", "NaN")
	f.Add("a;b=c", "back=%2Fapp%2F..%2F%5Cevil", " 1", "-1", "1e400")
	f.Fuzz(func(t *testing.T, query, body, search, page, lead string) {
		req := httptest.NewRequest("POST", "/app/x", strings.NewReader(body))
		req.URL.RawQuery = query
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		status, msg := parseForm(httptest.NewRecorder(), req, 1<<20)
		if status == 0 {
			if !validValues(req.Form) || !validValues(req.PostForm) {
				t.Fatalf("query %q body %q: invalid values let through: %q", query, body, req.Form)
			}
		} else if status != http.StatusBadRequest || msg == "" {
			t.Fatalf("status %d %q", status, msg)
		}
		if q, err := searchTerm(search); err == nil && utf8.RuneCountInString(q) > maxSearchLen {
			t.Fatalf("searchTerm let %d characters through", utf8.RuneCountInString(q))
		}
		if n, err := pageNumber(page); err == nil && (n < 1 || n > maxPage) {
			t.Fatalf("pageNumber(%q) = %d", page, n)
		}
		if v, ok := contact.ParseLeadValue(lead); ok && !(v >= 0 && v <= 1.7976931348623157e308) {
			t.Fatalf("amount(%q) = %v", lead, v)
		}
		checkLocalPath(t, req.PostForm.Get("back"), localPath(req.PostForm.Get("back"), req.Host))
	})
}
