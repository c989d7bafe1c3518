package patients

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"math/big"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/jobs"
	"github.com/frontdesk/frontdesk/internal/phone"
	"github.com/frontdesk/frontdesk/internal/texts"
)

// Verification codes (docs/patient-api.md, Verification codes).
const (
	CodeLifetime     = 10 * time.Minute
	CodeTries        = 5 // wrong guesses that end a code
	CodesPerPhone    = 3 // codes per phone per CodeWindow
	CodesPerAddress  = 20
	CodeWindow       = time.Hour
	codeDigits       = 6
	codeSaltBytes    = 16
	maxClientAddrLen = 100
)

// RequestCode sends a new one-time code to rawPhone through the account's
// default channel (message kind verification_code) and returns when it
// expires. A phone gets at most CodesPerPhone codes and a client address
// CodesPerAddress codes per hour (RATE_LIMITED with retry_after_seconds).
// A page that does not verify phones has no codes: NOT_FOUND.
func RequestCode(ctx context.Context, store *db.DB, p Page, rawPhone, clientAddr string, now time.Time) (time.Time, error) {
	if !p.Settings.VerifyPhone {
		return time.Time{}, errs.New(errs.NotFound, "This booking page does not send verification codes.")
	}
	num, err := parsePhone(p.Account, rawPhone)
	if err != nil {
		return time.Time{}, err
	}
	if len(clientAddr) > maxClientAddrLen {
		clientAddr = clientAddr[:maxClientAddrLen]
	}
	code, err := newCode()
	if err != nil {
		return time.Time{}, err
	}
	salt := make([]byte, codeSaltBytes)
	if _, err := rand.Read(salt); err != nil {
		return time.Time{}, err
	}
	expires := now.Add(CodeLifetime)
	acct := p.Account
	err = store.Transact(ctx, func(tx *db.Tx) error {
		if err := lockCodes(ctx, tx, acct); err != nil {
			return err
		}
		since := db.Micros(now.Add(-CodeWindow))
		wait, err := codeLimit(ctx, tx, `SELECT COUNT(*), MIN(created_at) FROM verification_codes
			WHERE account_id = ? AND phone = ? AND created_at > ?`, []any{acct.ID, num.E164(), since}, CodesPerPhone, now)
		if err != nil {
			return err
		}
		if wait > 0 {
			return errs.WithDetails(errs.RateLimited, map[string]any{"retry_after_seconds": wait},
				"This phone has had %d codes in the last hour; wait before asking for another.", CodesPerPhone)
		}
		wait, err = codeLimit(ctx, tx, `SELECT COUNT(*), MIN(created_at) FROM verification_codes
			WHERE account_id = ? AND client_addr = ? AND created_at > ?`, []any{acct.ID, clientAddr, since}, CodesPerAddress, now)
		if err != nil {
			return err
		}
		if wait > 0 {
			return errs.WithDetails(errs.RateLimited, map[string]any{"retry_after_seconds": wait},
				"This address has asked for %d codes in the last hour; wait before asking for another.", CodesPerAddress)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO verification_codes (account_id, phone, client_addr, code_salt, code_hash, tries, created_at, expires_at)
			VALUES (?, ?, ?, ?, ?, 0, ?, ?)`, acct.ID, num.E164(), clientAddr, hex.EncodeToString(salt), codeHash(salt, code),
			db.Micros(now), db.Micros(expires)); err != nil {
			return fmt.Errorf("insert verification code: %w", err)
		}
		body := texts.Render(p.Language, texts.VerificationCode, texts.Vars{Account: acct.Name, Code: code})
		return jobs.QueueMessage(ctx, tx, acct, now, jobs.Message{Kind: jobs.MsgVerificationCode, Channel: "sms",
			Recipient: num.E164(), Body: body, Source: jobs.MessageSource{Type: "verification"}}, now, nil)
	})
	if err != nil {
		return time.Time{}, err
	}
	return expires, nil
}

// codeLimit counts with query the codes in the window; at limit it
// returns the whole seconds until the oldest of them leaves it (else 0).
func codeLimit(ctx context.Context, tx *db.Tx, query string, args []any, limit int, now time.Time) (int64, error) {
	var (
		n      int
		oldest *int64
	)
	if err := tx.QueryRow(ctx, query, args...).Scan(&n, &oldest); err != nil {
		return 0, fmt.Errorf("count verification codes: %w", err)
	}
	if n < limit || oldest == nil {
		return 0, nil
	}
	wait := db.Time(*oldest).Add(CodeWindow).Sub(now)
	return max(int64((wait+time.Second-1)/time.Second), 1), nil
}

// lockCodes serialises an account's code requests on PostgreSQL, so two
// racing requests cannot both pass a limit (SQLite's write transactions
// already run one at a time).
func lockCodes(ctx context.Context, tx *db.Tx, acct account.Account) error {
	if tx.Dialect().Engine != db.Postgres {
		return nil
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "patients/codes/%d", acct.ID)
	_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(?)`, int64(h.Sum64()))
	return err
}

// newCode draws a uniformly random six-digit code.
func newCode() (string, error) {
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%0*d", codeDigits, n.Int64()), nil
}

// codeHash is what is stored of a code: SHA-256 of the row's salt and the
// code, so the database never holds the code itself.
func codeHash(salt []byte, code string) string {
	h := sha256.New()
	h.Write(salt)
	h.Write([]byte(code))
	return hex.EncodeToString(h.Sum(nil))
}

// errVerification is every failed check alike: wrong, expired, used or
// out of tries.
func errVerification() error {
	return errs.WithDetails(errs.VerificationFailed, map[string]any{"field": "code"},
		"The code is wrong, expired or already used; ask for a new one.")
}

// consumeCode spends one try of every live code of the phone and, when
// code is one of them, gives the tries back, marks that one used and
// returns its id: only wrong guesses count. Counting the try first, in the
// same statement that reads the codes, keeps parallel guesses within
// CodeTries; marking it used only where it is not yet makes a code book
// once however many requests carry it.
func consumeCode(ctx context.Context, store *db.DB, acct account.Account, e164, code string, now time.Time) (int64, error) {
	var used int64
	err := store.Transact(ctx, func(tx *db.Tx) error {
		used = 0
		rows, err := tx.Query(ctx, `UPDATE verification_codes SET tries = tries + 1
			WHERE account_id = ? AND phone = ? AND used_at IS NULL AND expires_at > ? AND tries < ?
			RETURNING id, code_salt, code_hash`, acct.ID, e164, db.Micros(now), CodeTries)
		if err != nil {
			return fmt.Errorf("try verification code: %w", err)
		}
		defer rows.Close()
		var match int64
		var tried []int64
		for rows.Next() {
			var (
				id         int64
				salt, hash string
			)
			if err := rows.Scan(&id, &salt, &hash); err != nil {
				return err
			}
			tried = append(tried, id)
			raw, err := hex.DecodeString(salt)
			if err != nil {
				continue
			}
			if subtle.ConstantTimeCompare([]byte(codeHash(raw, code)), []byte(hash)) == 1 {
				match = id
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows.Close()
		if match == 0 {
			return nil // the tries are kept: commit
		}
		// The right code is no wrong guess: the try is given back.
		in, args := db.In(tried)
		if _, err := tx.Exec(ctx, `UPDATE verification_codes SET tries = tries - 1 WHERE account_id = ? AND id IN `+in,
			append([]any{acct.ID}, args...)...); err != nil {
			return fmt.Errorf("try verification code: %w", err)
		}
		res, err := tx.Exec(ctx, `UPDATE verification_codes SET used_at = ? WHERE account_id = ? AND id = ? AND used_at IS NULL`,
			db.Micros(now), acct.ID, match)
		if err != nil {
			return fmt.Errorf("use verification code: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 1 {
			used = match
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	if used == 0 {
		return 0, errVerification()
	}
	return used, nil
}

// releaseCode gives a used code back after the booking it was spent on
// failed (the slot went, a rule refused it), so the patient can pick
// another slot with the same code. Its tries stay spent.
func releaseCode(ctx context.Context, store *db.DB, acct account.Account, id int64) error {
	_, err := store.Exec(ctx, `UPDATE verification_codes SET used_at = NULL WHERE account_id = ? AND id = ?`, acct.ID, id)
	return err
}

// parsePhone reads a patient's phone with the account's default region.
func parsePhone(acct account.Account, raw string) (phone.Number, error) {
	num, err := phone.ParseWithRegion(raw, acct.DefaultRegion)
	if err != nil {
		return phone.Number{}, errs.WithDetails(errs.InvalidPhone, map[string]any{"field": "phone"}, "phone: %s.", err.Error())
	}
	return num, nil
}
