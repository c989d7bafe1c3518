package dashboard

// Settings › Team: members, roles and invitations by one-time link, owners
// only and audited; the invitation link itself is opened signed out.

import (
	"crypto/subtle"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/audit"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/password"
)

type teamView struct {
	Members     []account.Member
	Invitations []account.Invitation
	Roles       []string
	// Link is the invitation link created by this request, shown once.
	Link    string
	Invited *account.Invitation
}

func (teamView) isPage() {}

// teamPage handles "GET /app/settings/team".
func (d *Dashboard) teamPage(w http.ResponseWriter, r *http.Request, s *session) error {
	return d.renderTeam(w, r, s, teamView{})
}

func (d *Dashboard) renderTeam(w http.ResponseWriter, r *http.Request, s *session, v teamView) error {
	members, err := account.ListMembers(r.Context(), d.db, s.Account)
	if err != nil {
		return err
	}
	invs, err := account.PendingInvitations(r.Context(), d.db, s.Account, d.clock.Now())
	if err != nil {
		return err
	}
	v.Members, v.Invitations, v.Roles = members, invs, account.Roles
	d.render(w, r, s, http.StatusOK, "settings_team", "Team", "settings-team", v)
	return nil
}

// invite handles "POST /app/settings/team/invitations": the link is
// rendered in this response only; only its token's hash is stored.
func (d *Dashboard) invite(w http.ResponseWriter, r *http.Request, s *session) error {
	in := account.NewInvitation{Email: r.PostForm.Get("email"), Name: r.PostForm.Get("name"), Role: r.PostForm.Get("role")}
	var inv account.Invitation
	var token string
	err := d.audited(r.Context(), s, func(tx *db.Tx) (string, string, string, string, error) {
		var err error
		inv, token, err = account.Invite(r.Context(), tx, s.Account, s.UserID, in, d.clock.Now())
		if err != nil {
			return "", "", "", "", err
		}
		return "invited", "invitation", strconv.FormatInt(inv.ID, 10), inv.Email + " as " + inv.Role, nil
	})
	if err != nil {
		return localize(s, err)
	}
	return d.renderTeam(w, r, s, teamView{Link: d.publicBase(r) + Prefix + "invite/" + token, Invited: &inv})
}

// withdrawInvitation handles "POST /app/settings/team/invitations/{invitation_id}/withdraw".
func (d *Dashboard) withdrawInvitation(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "invitation_id")
	if err != nil {
		return err
	}
	err = d.audited(r.Context(), s, func(tx *db.Tx) (string, string, string, string, error) {
		inv, err := account.WithdrawInvitation(r.Context(), tx, s.Account, id)
		if err != nil {
			return "", "", "", "", err
		}
		return "withdrawn", "invitation", strconv.FormatInt(id, 10), inv.Email, nil
	})
	if err != nil {
		return localize(s, err)
	}
	d.redirect(w, r, Prefix+"settings/team", "ok", s.Translate("Invitation withdrawn: its link no longer works."))
	return nil
}

// changeRole handles "POST /app/settings/team/{user_id}/role".
func (d *Dashboard) changeRole(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "user_id")
	if err != nil {
		return err
	}
	role := r.PostForm.Get("role")
	var before account.Member
	err = d.audited(r.Context(), s, func(tx *db.Tx) (string, string, string, string, error) {
		before, err = account.SetRole(r.Context(), tx, s.Account, s.UserID, id, role)
		if err != nil || before.Role == role {
			return "", "", "", "", err
		}
		return "role_changed", "user", strconv.FormatInt(id, 10), before.Name + ": " + before.Role + " → " + role, nil
	})
	if err != nil {
		return localize(s, err)
	}
	d.redirect(w, r, Prefix+"settings/team", "ok", s.Translate("%s is now %s.", before.Name, roleWord(s, role)))
	return nil
}

// toggleMember handles "POST /app/settings/team/{user_id}/active"
// (active=true reactivates, else deactivates and ends their sessions).
func (d *Dashboard) toggleMember(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "user_id")
	if err != nil {
		return err
	}
	active := r.PostForm.Get("active") == "true"
	var m account.Member
	err = d.audited(r.Context(), s, func(tx *db.Tx) (string, string, string, string, error) {
		m, err = account.SetActive(r.Context(), tx, s.Account, s.UserID, id, active)
		if err != nil || m.Active == active {
			return "", "", "", "", err
		}
		action := "deactivated"
		if active {
			action = "reactivated"
		}
		return action, "user", strconv.FormatInt(id, 10), m.Name + " (" + m.Email + ")", nil
	})
	if err != nil {
		return localize(s, err)
	}
	msg := s.Translate("%s can no longer sign in.", m.Name)
	if active {
		msg = s.Translate("%s can sign in again.", m.Name)
	}
	d.redirect(w, r, Prefix+"settings/team", "ok", msg)
	return nil
}

// --- Invitation link (signed out) ------------------------------------------

const inviteCSRFCookie = "frontdesk_invite_csrf"

type inviteView struct {
	Invitation account.Invitation
	Token      string
	Name       string
	FormCSRF   string
	Error      string
	MinLength  int
}

func (inviteView) isPage() {}

// invitePage handles "GET /app/invite/{token}": the form that accepts an
// invitation. An unknown, used or expired link is refused with the same
// words. The form carries a double-submit token (as sign-in does).
func (d *Dashboard) invitePage(w http.ResponseWriter, r *http.Request) {
	if !d.decodeForm(w, r, nil, 64<<10) {
		return
	}
	token := r.PathValue("token")
	inv, err := account.InvitationByToken(r.Context(), d.db, token, d.clock.Now())
	if err != nil {
		d.inviteFailed(w, r, err)
		return
	}
	d.renderInvite(w, r, http.StatusOK, inviteView{Invitation: inv, Token: token, Name: inv.Name})
}

func (d *Dashboard) renderInvite(w http.ResponseWriter, r *http.Request, status int, v inviteView) {
	v.FormCSRF = randomToken()
	v.MinLength = password.MinLength
	http.SetCookie(w, &http.Cookie{Name: inviteCSRFCookie, Value: v.FormCSRF, Path: Prefix + "invite/",
		MaxAge: 3600, HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: isTLS(r)})
	d.render(w, r, nil, status, "invite", "Join the team", "", v)
}

// inviteFailed renders a refused link (410 Gone) or any other error.
func (d *Dashboard) inviteFailed(w http.ResponseWriter, r *http.Request, err error) {
	var e *errs.Error
	if errors.As(err, &e) && e.Code == errs.ValidationError {
		d.renderError(w, r, nil, http.StatusGone, lang(requestLanguage(r)).Err(e))
		return
	}
	d.fail(w, r, nil, err)
}

// acceptInvite handles "POST /app/invite/{token}": it creates the user
// with the invitation's e-mail and role, uses up the link, and signs the
// new user in.
func (d *Dashboard) acceptInvite(w http.ResponseWriter, r *http.Request) {
	if !d.decodeForm(w, r, nil, 64<<10) {
		return
	}
	lang := requestLanguage(r)
	c, err := r.Cookie(inviteCSRFCookie)
	sent := r.PostForm.Get("csrf_token")
	if err != nil || sent == "" || subtle.ConstantTimeCompare([]byte(sent), []byte(c.Value)) != 1 {
		d.renderError(w, r, nil, http.StatusForbidden, translate(lang, "This form has expired. Reload the page and try again."))
		return
	}
	token := r.PathValue("token")
	now := d.clock.Now()
	inv, err := account.InvitationByToken(r.Context(), d.db, token, now)
	if err != nil {
		d.inviteFailed(w, r, err)
		return
	}
	name, pw := strings.TrimSpace(r.PostForm.Get("name")), r.PostForm.Get("password")
	v := inviteView{Invitation: inv, Token: token, Name: name}
	if len(pw) < password.MinLength || len(pw) > maxLoginFieldLen {
		v.Error = translate(lang, "Choose a password of %d to %d characters.", password.MinLength, maxLoginFieldLen)
		d.renderInvite(w, r, http.StatusUnprocessableEntity, v)
		return
	}
	hash, err := password.Hash(pw)
	if err != nil {
		d.fail(w, r, nil, err)
		return
	}
	var userID int64
	err = d.db.Transact(r.Context(), func(tx *db.Tx) error {
		var err error
		inv, userID, err = account.Accept(r.Context(), tx, token, name, hash, now)
		if err != nil {
			return err
		}
		return audit.Record(r.Context(), tx, account.Account{ID: inv.AccountID}, audit.Actor{UserID: userID, UserName: inv.Name},
			"accepted", "invitation", strconv.FormatInt(inv.ID, 10), inv.Email+" joined as "+inv.Role, now)
	})
	if err != nil {
		var e *errs.Error
		if errors.As(err, &e) && e.Code == errs.ValidationError && !errors.Is(err, account.ErrInvitationGone) {
			v.Error = langOf(r, nil).Err(e)
			d.renderInvite(w, r, http.StatusUnprocessableEntity, v)
			return
		}
		d.inviteFailed(w, r, err)
		return
	}
	sessionToken, err := d.startSession(r.Context(), userRef{id: userID, accountID: inv.AccountID})
	if err != nil {
		d.fail(w, r, nil, err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: sessionToken, Path: Prefix, MaxAge: int(d.max / time.Second),
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: isTLS(r)})
	http.SetCookie(w, &http.Cookie{Name: inviteCSRFCookie, Path: Prefix + "invite/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode})
	d.logger(r.Context()).Info("dashboard: invitation accepted", "account_id", inv.AccountID, "user_id", userID)
	d.redirect(w, r, Prefix, "ok", translate(lang, "Welcome, %s: you are signed in.", inv.Name))
}

// roleWord names a team role in the user's language.
func roleWord(s *session, role string) string {
	if role == account.RoleOwner {
		return s.Translate("owner")
	}
	return s.Translate("staff")
}
