package contact

// The one client search rule (docs/patient-search.md): every door that
// finds clients by what a receptionist types (the dashboard's Clients page,
// the booking form's client lookup) calls SearchClients.

import (
	"context"
	"strings"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/names"
	"github.com/frontdesk/frontdesk/internal/phone"
)

// SearchText is the folded search column (clients.search_text) of a
// client with these names, e-mail and national id (DNI/NIE, stored form).
// Every write of a client's names, e-mail or national id stores it;
// migration 00030 filled it for the clients before.
func SearchText(first, last, email, nationalID string) string {
	return names.SearchText(first, last, email, nationalID)
}

// SearchClients finds the account's clients a receptionist's query names.
// A query of digits (with spaces, dashes, dots, brackets or a leading '+')
// matches the digits of the client's phone in any format, with or without
// the country code; any other query is cut into words (names.QueryWords)
// and every word must be the prefix of a word of the client's first name,
// last name or e-mail, in any order, accents and case ignored. Clients
// whose full name is the query come first, then by name. An empty query
// lists the newest clients. A DNI or NIE (whole or its start, in any case,
// with spaces, dashes or dots) matches the client's national id; digits
// alone match it from its start as well as the phone. It returns at most limit clients and the
// number matching.
func SearchClients(ctx context.Context, q db.Querier, acct account.Account, query string, limit int) ([]Client, int, error) {
	where, args := "c.account_id = ?", []any{acct.ID}
	order, orderArgs := "c.updated_at DESC, c.id DESC", []any(nil)
	query = strings.TrimSpace(query)
	// Code-point order on both engines (names.SearchText puts the folded
	// full name first); PostgreSQL would otherwise use the database's
	// linguistic collation.
	coll := ""
	if q.Dialect().Engine == db.Postgres {
		coll = ` COLLATE "C"`
	}
	if digits, ok := phoneQuery(query); ok {
		// A DNI is read out as digits too: its number from the start.
		where += ` AND (c.phone_national LIKE ? OR (CAST(c.phone_cc AS TEXT) || c.phone_national) LIKE ? OR c.national_id LIKE ?)`
		args = append(args, "%"+digits+"%", "%"+digits+"%", phone.Digits(query)+"%")
		order = "c.search_text" + coll + ", c.id"
	} else if words := names.QueryWords(query); len(words) > 0 {
		cond := make([]string, len(words))
		for i, w := range words {
			cond[i] = `c.search_text LIKE ? ESCAPE '\'`
			args = append(args, "% "+escapeLike(w)+"%")
		}
		// A DNI or NIE typed with spaces, dashes or dots ("12345678 z",
		// "x-1234567-l") is one word of search_text, whatever the case.
		if id, ok := nationalIDQuery(query); ok {
			cond = []string{"(" + strings.Join(cond, " AND ") + `) OR c.search_text LIKE ? ESCAPE '\'`}
			args = append(args, "% "+escapeLike(id)+"%")
		}
		where += " AND (" + strings.Join(cond, " AND ") + ")"
		order = `CASE WHEN c.search_text LIKE ? ESCAPE '\' THEN 0 ELSE 1 END, c.search_text` + coll + `, c.id`
		orderArgs = []any{escapeLike(strings.Join(words, " ")) + "\t%"}
	} else if query != "" {
		return nil, 0, nil // only punctuation: nothing can match
	}
	var total int
	if err := q.QueryRow(ctx, `SELECT COUNT(*) FROM clients c WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	args = append(append(args, orderArgs...), limit)
	rows, err := q.Query(ctx, `SELECT `+Columns+` FROM clients c WHERE `+where+` ORDER BY `+order+` LIMIT ?`, args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []Client
	for rows.Next() {
		c, err := Scan(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, c)
	}
	return out, total, rows.Err()
}

// nationalIDQuery returns the folded stored form of a query that reads as
// a DNI or NIE, whole or its start: a digit or X, Y, Z, then digits, then
// perhaps a letter, once spaces, dashes and dots are removed, with at least
// three digits.
func nationalIDQuery(query string) (string, bool) {
	id := CompactNationalID(query)
	digits := 0
	for i, r := range id {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case i == 0 && (r == 'X' || r == 'Y' || r == 'Z'):
		case i == len(id)-1 && r >= 'A' && r <= 'Z' && digits > 0:
		default:
			return "", false
		}
	}
	return strings.ToLower(id), digits >= 3
}

// phoneQuery returns the digits a query reads as part of a phone number:
// at least three digits, and nothing but digits, spaces, '-', '.', '(',
// ')' and a leading '+'. An international prefix written "00" is dropped,
// so "0034 600" finds what "+34 600" finds.
func phoneQuery(query string) (string, bool) {
	if query == "" {
		return "", false
	}
	for i, r := range query {
		switch {
		case r >= '0' && r <= '9', r == ' ', r == '-', r == '.', r == '(', r == ')':
		case r == '+' && i == 0:
		default:
			return "", false
		}
	}
	digits := phone.Digits(query)
	if strings.HasPrefix(digits, "00") {
		digits = digits[2:]
	}
	return digits, len(digits) >= 3
}

func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
