package contact

// A patient's Spanish identity document and insurer (docs/patient-fields.md):
// the one rule every door that writes them calls (the dashboard's client
// form, the workspace file).

import (
	"strings"
	"unicode/utf8"

	"github.com/frontdesk/frontdesk/internal/errs"
)

// MaxInsurerLen and MaxPolicyLen are the longest insurer name and policy
// number, in characters.
const (
	MaxInsurerLen = 100
	MaxPolicyLen  = 50
)

// nationalIDLetters is the official control-letter table: a DNI's number
// (a NIE's with X, Y, Z read as 0, 1, 2) modulo 23 indexes it.
const nationalIDLetters = "TRWAGMYFPDXBNJZSQVHLCKE"

// Refusals of NationalID and Insurance, catalogue keys of their own.
const (
	MsgNationalIDShape  = "%q is not a DNI (8 digits and a letter) or an NIE (X, Y or Z, 7 digits and a letter)."
	MsgNationalIDLetter = "The letter of %q does not match its number: check the DNI or NIE."
	MsgInsuranceTooLong = "The insurer may have at most %d characters and the policy number at most %d."
)

// CompactNationalID is s in the stored form of a DNI or NIE: upper case,
// without spaces, dashes or dots. It does not check it (NationalID does).
func CompactNationalID(s string) string {
	return strings.ToUpper(strings.Map(func(r rune) rune {
		switch r {
		case ' ', '-', '.', '\t':
			return -1
		}
		return r
	}, s))
}

// NationalID is the DNI/NIE rule: s without spaces, dashes or dots and in
// upper case must be a DNI (8 digits and a letter) or an NIE (X, Y or Z,
// 7 digits and a letter) whose letter is the official mod-23 control
// letter. It returns the stored form; an empty s is allowed (no document).
func NationalID(s string) (string, error) {
	id := CompactNationalID(s)
	if id == "" {
		return "", nil
	}
	num := id
	if len(id) == 9 {
		switch id[0] {
		case 'X':
			num = "0" + id[1:]
		case 'Y':
			num = "1" + id[1:]
		case 'Z':
			num = "2" + id[1:]
		}
	}
	if len(num) != 9 || num[8] < 'A' || num[8] > 'Z' {
		return "", errs.New(errs.ValidationError, MsgNationalIDShape, strings.TrimSpace(s))
	}
	n := 0
	for _, r := range num[:8] {
		if r < '0' || r > '9' {
			return "", errs.New(errs.ValidationError, MsgNationalIDShape, strings.TrimSpace(s))
		}
		n = n*10 + int(r-'0')
	}
	if nationalIDLetters[n%23] != num[8] {
		return "", errs.New(errs.ValidationError, MsgNationalIDLetter, strings.TrimSpace(s))
	}
	return id, nil
}

// Insurance is the insurer rule: both trimmed, the insurer at most
// MaxInsurerLen characters and the policy number at most MaxPolicyLen.
func Insurance(insurer, policy string) (string, string, error) {
	insurer, policy = strings.TrimSpace(insurer), strings.TrimSpace(policy)
	if utf8.RuneCountInString(insurer) > MaxInsurerLen || utf8.RuneCountInString(policy) > MaxPolicyLen {
		return "", "", errs.New(errs.ValidationError, MsgInsuranceTooLong, MaxInsurerLen, MaxPolicyLen)
	}
	return insurer, policy, nil
}
