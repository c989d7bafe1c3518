package dashboard

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/password"
)

const (
	sessionCookie    = "frontdesk_session"
	loginCSRFCookie  = "frontdesk_login_csrf"
	touchEvery       = time.Minute
	maxLoginFieldLen = 255
)

// session is a signed-in user's session.
type session struct {
	ID       int64
	Account  account.Account
	UserID   int64
	UserName string
	Email    string
	CSRF     string
	Role     string // account.RoleOwner or account.RoleStaff
	Lang     string // the dashboard's language: "es" or "en"
	// ProfessionalID is the professional the user is (0: none): a staff
	// user's reports are that professional's (docs/reports.md).
	ProfessionalID int64

	lastSeen time.Time
}

// IsOwner reports whether the user may open the settings.
func (s *session) IsOwner() bool { return s != nil && s.Role == account.RoleOwner }

func (s *session) csrfOK(sent string) bool {
	return s != nil && sent != "" && subtle.ConstantTimeCompare([]byte(sent), []byte(s.CSRF)) == 1
}

func randomToken() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func hashToken(t string) string {
	sum := sha256.Sum256([]byte(t))
	return hex.EncodeToString(sum[:])
}

// isTLS reports whether the browser reached us over HTTPS, directly or
// through a proxy that says so; the session cookie is then Secure.
func isTLS(r *http.Request) bool {
	return r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}

// currentSession loads the session of the request's cookie, if it is live.
func (d *Dashboard) currentSession(r *http.Request) (*session, error) {
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" || len(c.Value) > 100 {
		return nil, nil
	}
	now := d.clock.Now()
	stored, ok, err := account.SessionByToken(r.Context(), d.db, hashToken(c.Value))
	if err != nil || !ok {
		return nil, err
	}
	s := &session{ID: stored.ID, Account: stored.Account, UserID: stored.UserID, UserName: stored.UserName, Email: stored.Email,
		CSRF: stored.CSRF, Role: stored.Role, Lang: language(stored.Language), ProfessionalID: stored.ProfessionalID, lastSeen: stored.LastSeen}
	if !now.Before(stored.Expires) || !now.Before(s.lastSeen.Add(d.idle)) {
		account.EndSession(r.Context(), d.db, s.ID)
		return nil, nil
	}
	return s, nil
}

// signedIn returns the request's live session, or sends the browser to the
// sign-in page (303) and reports false. It records activity at most once a
// minute, which is what the idle timeout counts from.
func (d *Dashboard) signedIn(w http.ResponseWriter, r *http.Request) (*session, bool) {
	s, err := d.currentSession(r)
	if err != nil {
		d.fail(w, r, nil, err)
		return nil, false
	}
	if s == nil {
		next := ""
		if r.Method == http.MethodGet {
			next = "?next=" + url.QueryEscape(r.URL.RequestURI())
		}
		http.Redirect(w, r, Prefix+"login"+next, http.StatusSeeOther)
		return nil, false
	}
	if now := d.clock.Now(); now.Sub(s.lastSeen) >= touchEvery {
		if err := account.TouchSession(r.Context(), d.db, s.ID, now); err != nil {
			d.logger(r.Context()).Warn("dashboard: touch session", "err", err)
		}
	}
	return s, true
}

type loginView struct {
	Email, Workspace, Next, Error string
	LoginCSRF                     string
}

func (loginView) isPage() {}

// loginPage handles "GET /app/login". The form carries a token that must
// match a cookie set with it (double submit), so a third-party page cannot
// sign a browser into an account of the attacker's choosing.
func (d *Dashboard) loginPage(w http.ResponseWriter, r *http.Request) {
	if !d.decodeForm(w, r, nil, 64<<10) {
		return
	}
	if s, _ := d.currentSession(r); s != nil {
		http.Redirect(w, r, Prefix, http.StatusSeeOther)
		return
	}
	d.renderLogin(w, r, http.StatusOK, loginView{Next: safeNext(r.URL.Query().Get("next"))})
}

func (d *Dashboard) renderLogin(w http.ResponseWriter, r *http.Request, status int, v loginView) {
	v.LoginCSRF = randomToken()
	http.SetCookie(w, &http.Cookie{Name: loginCSRFCookie, Value: v.LoginCSRF, Path: Prefix + "login",
		MaxAge: 3600, HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: isTLS(r)})
	d.render(w, r, nil, status, "login", "Sign in", "", v)
}

// login handles "POST /app/login".
func (d *Dashboard) login(w http.ResponseWriter, r *http.Request) {
	if !d.decodeForm(w, r, nil, 64<<10) {
		return
	}
	c, err := r.Cookie(loginCSRFCookie)
	sent := r.PostForm.Get("csrf_token")
	if err != nil || sent == "" || subtle.ConstantTimeCompare([]byte(sent), []byte(c.Value)) != 1 {
		d.renderError(w, r, nil, http.StatusForbidden, langOf(r, nil).Translate("This sign-in form has expired. Reload the page and try again."))
		return
	}
	l := langOf(r, nil)
	v := loginView{
		Email:     strings.TrimSpace(r.PostForm.Get("email")),
		Workspace: strings.TrimSpace(r.PostForm.Get("workspace")),
		Next:      safeNext(r.PostForm.Get("next")),
	}
	pw := r.PostForm.Get("password")
	if v.Email == "" || pw == "" || len(v.Email) > maxLoginFieldLen || len(pw) > maxLoginFieldLen || len(v.Workspace) > maxLoginFieldLen {
		v.Error = l.Translate("Enter your e-mail and password.")
		d.renderLogin(w, r, http.StatusUnauthorized, v)
		return
	}
	keys := signInThrottleKeys(v.Email, r)
	if wait, perAddress, err := d.admitSignIn(r.Context(), &keys); err != nil {
		d.fail(w, r, nil, err)
		return
	} else if wait > 0 {
		d.logger(r.Context()).Warn("dashboard: sign-in throttled", "remote", r.RemoteAddr, "per_address", perAddress)
		w.Header().Set("Retry-After", strconv.Itoa(ceilDiv(wait, time.Second)))
		v.Error = l.Translate("Too many failed sign-ins for this e-mail from your network. Try again in %d minutes.", ceilDiv(wait, time.Minute))
		if perAddress {
			v.Error = l.Translate("Too many failed sign-ins from your network. Try again in %d minutes.", ceilDiv(wait, time.Minute))
		}
		d.renderLogin(w, r, http.StatusTooManyRequests, v)
		return
	}
	user, err := d.authenticate(r.Context(), v.Email, pw, v.Workspace)
	if err == errBadCredentials {
		d.sweepSignInAttempts(r.Context())
	}
	if err != nil {
		if e, ok := err.(*errs.Error); ok {
			v.Error = l.Err(e)
			d.renderLogin(w, r, http.StatusUnauthorized, v)
			return
		}
		d.fail(w, r, nil, err)
		return
	}
	d.signInSucceeded(r.Context(), keys)
	token, err := d.startSession(r.Context(), user)
	if err != nil {
		d.fail(w, r, nil, err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: token, Path: Prefix, MaxAge: int(d.max / time.Second),
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: isTLS(r)})
	http.SetCookie(w, &http.Cookie{Name: loginCSRFCookie, Path: Prefix + "login", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode})
	d.logger(r.Context()).Info("dashboard: signed in", "account_id", user.accountID, "user_id", user.id)
	next := v.Next
	if next == "" {
		next = Prefix
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// throttleKeys are the two counters a sign-in attempt is counted under.
type throttleKeys struct {
	// email is the e-mail (normalised) and the client's address: the
	// limit on guessing one user's password.
	email string
	// addr is the client's address alone (its /64 for IPv6, which one
	// machine usually holds whole): the limit on trying many e-mails.
	addr string
	// addrWindow is the window start the address counter had when this
	// attempt was counted, so a refund never lands in a later window.
	addrWindow int64
}

// signInThrottleKeys keys an attempt by the connection's address, never a
// forwarded header a guesser could vary; behind a proxy every user shares
// it and the limits become per e-mail and per proxy. Keying the e-mail
// limit on the address too means a stranger failing on purpose cannot lock
// a user out from everywhere.
func signInThrottleKeys(email string, r *http.Request) throttleKeys {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if ip := net.ParseIP(host); ip != nil && ip.To4() == nil {
		host = ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
	}
	return throttleKeys{email: "e|" + contact.NormEmail(email) + "|" + host, addr: "a|" + host}
}

// admitSignIn counts the attempt under both keys before any password is
// checked (account.AdmitSignIn: the e-mail limit, the address limit, and
// exact counts however many attempts arrive at once), and says how long
// the client must wait (0: check the password now).
func (d *Dashboard) admitSignIn(ctx context.Context, k *throttleKeys) (wait time.Duration, perAddress bool, err error) {
	v, err := account.AdmitSignIn(ctx, d.db, k.addr, k.email,
		account.SignInLimits{PerEmail: d.signInLimit, PerAddress: d.signInAddressLimit, Window: d.signInWindow}, d.clock.Now())
	if err != nil {
		return 0, false, err
	}
	k.addrWindow = v.AddressWindow
	return v.Wait, v.PerAddress, nil
}

// refundAddressAttempt takes back an attempt from the address counter,
// within the window it was counted in. A failed refund only makes the
// limit stricter until the window ends, so it is logged, not fatal.
func (d *Dashboard) refundAddressAttempt(ctx context.Context, k throttleKeys) {
	if err := account.RefundSignInAttempt(ctx, d.db, k.addr, k.addrWindow); err != nil {
		d.logger(ctx).Warn("dashboard: refunding a sign-in attempt", "err", err)
	}
}

// signInSucceeded clears the e-mail's counter and gives the attempt back
// to the address.
func (d *Dashboard) signInSucceeded(ctx context.Context, k throttleKeys) {
	if err := account.ClearSignInAttempts(ctx, d.db, k.email); err != nil {
		// Not fatal: the counter ages out of the window on its own.
		d.logger(ctx).Warn("dashboard: clearing sign-in attempts", "err", err)
	}
	d.refundAddressAttempt(ctx, k)
}

// sweepSignInAttempts deletes counters whose window has passed; it runs
// after a failed password, the only case that leaves counters behind.
func (d *Dashboard) sweepSignInAttempts(ctx context.Context) {
	if err := account.SweepSignInAttempts(ctx, d.db, d.clock.Now().Add(-d.signInWindow)); err != nil {
		d.logger(ctx).Warn("dashboard: sweeping sign-in attempts", "err", err)
	}
}

// ceilDiv is d in units, rounded up, at least 1.
func ceilDiv(d, unit time.Duration) int {
	n := int((d + unit - 1) / unit)
	return max(n, 1)
}

type userRef struct{ id, accountID int64 }

// errBadCredentials says nothing about which of e-mail or password was wrong.
var errBadCredentials = errs.New(errs.ValidationError, "That e-mail and password do not match. Check them and try again.")

// authenticate finds the active user with that e-mail whose password
// matches. An e-mail may belong to users of several workspaces; the
// workspace field (its slug) then says which one.
func (d *Dashboard) authenticate(ctx context.Context, email, pw, workspaceSlug string) (userRef, error) {
	cands, err := account.Credentials(ctx, d.db, contact.NormEmail(email), workspaceSlug)
	if err != nil {
		return userRef{}, err
	}
	if len(cands) == 0 {
		password.Waste(pw)
		return userRef{}, errBadCredentials
	}
	var matched []userRef
	for _, c := range cands {
		if password.Matches(c.PasswordHash, pw) {
			matched = append(matched, userRef{id: c.UserID, accountID: c.AccountID})
		}
	}
	switch len(matched) {
	case 0:
		return userRef{}, errBadCredentials
	case 1:
		return matched[0], nil
	default:
		return userRef{}, errs.New(errs.ValidationError, "This e-mail signs in to several workspaces: enter the workspace too.")
	}
}

func (d *Dashboard) startSession(ctx context.Context, u userRef) (string, error) {
	token := randomToken()
	now := d.clock.Now()
	if err := account.StartSession(ctx, d.db, u.accountID, u.id, hashToken(token), randomToken(), now, now.Add(d.max), now.Add(-d.idle)); err != nil {
		return "", err
	}
	return token, nil
}

// logout handles "POST /app/logout": the session is deleted, not just the
// cookie, so a copied cookie stops working too.
func (d *Dashboard) logout(w http.ResponseWriter, r *http.Request, s *session) error {
	if err := account.EndSession(r.Context(), d.db, s.ID); err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Path: Prefix, MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: isTLS(r)})
	d.redirect(w, r, Prefix+"login", "ok", langOf(r, nil).Translate("You are signed out."))
	return nil
}

// safeNext keeps a post-sign-in destination only when it is a dashboard
// path on this host (no open redirect), other than the sign-in page.
func safeNext(next string) string {
	p := localPath(next, "")
	if strings.HasPrefix(p, Prefix+"login") {
		return ""
	}
	return p
}

// SetPassword sets the password of the account's user with that e-mail
// and ends the user's sessions (frontdesk users set-password).
func SetPassword(ctx context.Context, store *db.DB, acct account.Account, email, plaintext string) error {
	if len(plaintext) < password.MinLength {
		return errs.New(errs.ValidationError, "a password needs at least %d characters", password.MinLength)
	}
	hash, err := password.Hash(plaintext)
	if err != nil {
		return errs.New(errs.ValidationError, "%s", err.Error())
	}
	return account.SetPasswordHash(ctx, store, acct, email, hash)
}
