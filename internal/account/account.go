// Package account holds tenants and their API keys. Every other area takes
// an Account as the first argument of its use cases and store calls: a query
// cannot be written without the tenant it is scoped to.
package account

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// Account is one customer workspace, as resolved from an API key.
type Account struct {
	ID            int64
	Slug          string
	Name          string
	Timezone      string
	DefaultRegion string
	Limits        Limits
}

// Limits is an account's API rate limit (docs/contract.md, Rate limits): a token bucket
// per API key. RequestsPerSecond 0 means unlimited.
type Limits struct {
	RequestsPerSecond float64
	Burst             int
}

// DefaultLimits applies to accounts whose workspace file sets none.
var DefaultLimits = Limits{RequestsPerSecond: 100, Burst: 200}

// Unlimited reports whether the limit is off.
func (l Limits) Unlimited() bool { return l.RequestsPerSecond <= 0 }

// limitColumns are selected after an account's other columns.
const limitColumns = `COALESCE(rate_per_second, 100), COALESCE(rate_burst, 200)`

// Location returns the account's time zone (UTC when unknown).
func (a Account) Location() *time.Location {
	if loc, ok := locations.Load(a.Timezone); ok {
		return loc.(*time.Location)
	}
	loc, err := time.LoadLocation(a.Timezone)
	if err != nil {
		loc = time.UTC
	}
	locations.Store(a.Timezone, loc)
	return loc
}

// locations keeps each zone loaded once: time.LoadLocation reads and parses
// the zone's file at every call, which the job worker paid for every
// message it sent (its quiet-hours check).
var locations sync.Map // name → *time.Location

const selectAccount = `SELECT id, slug, name, timezone, default_region, ` + limitColumns + ` FROM accounts`

func scanAccount(row interface{ Scan(...any) error }) (Account, error) {
	var a Account
	err := row.Scan(&a.ID, &a.Slug, &a.Name, &a.Timezone, &a.DefaultRegion, &a.Limits.RequestsPerSecond, &a.Limits.Burst)
	return a, err
}

// BySlug finds an account by its slug.
func BySlug(ctx context.Context, q db.Querier, slug string) (Account, error) {
	a, err := scanAccount(q.QueryRow(ctx, selectAccount+` WHERE slug = ?`, slug))
	if db.IsNoRows(err) {
		return Account{}, errs.New(errs.NotFound, "account %q not found", slug)
	}
	if err != nil {
		return Account{}, fmt.Errorf("account by slug: %w", err)
	}
	return a, nil
}

// ByID finds an account by id (for work that arrives without a key: jobs,
// provider callbacks that name a channel).
func ByID(ctx context.Context, q db.Querier, id int64) (Account, error) {
	a, err := scanAccount(q.QueryRow(ctx, selectAccount+` WHERE id = ?`, id))
	if db.IsNoRows(err) {
		return Account{}, errs.New(errs.NotFound, "account %d not found", id)
	}
	if err != nil {
		return Account{}, fmt.Errorf("account by id: %w", err)
	}
	return a, nil
}
