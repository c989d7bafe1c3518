package main

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
)

const keysUsage = `Usage:
  frontdesk keys create --account SLUG [--name N] [--expires-at RFC3339]
  frontdesk keys list --account SLUG [--json]
  frontdesk keys revoke --account SLUG --name N
Run "frontdesk keys create --help" for a subcommand's flags.
`

func cmdKeys(ctx context.Context, args []string, env *Env) error {
	if _, err := subcommand(args, env, keysUsage, "create", "list", "revoke"); err != nil {
		return err
	}
	f := newFlags("keys "+args[0], env)
	slug := f.String("account", "", "account slug")
	var (
		name    *string
		expires *string
		asJSON  *bool
	)
	switch args[0] {
	case "create":
		name = f.String("name", "", "key name (default: api-key-<time>)")
		expires = f.String("expires-at", "", "expiry time, RFC 3339")
	case "list":
		asJSON = f.Bool("json", false, "print a JSON array")
	case "revoke":
		name = f.String("name", "", "name of the key to revoke")
	default:
		fmt.Fprintf(env.Stderr, "keys: unknown subcommand %q\n", args[0])
		return errUsage
	}
	if err := f.parse(args[1:]); err != nil {
		return err
	}
	if *slug == "" {
		fmt.Fprintln(env.Stderr, "keys: --account SLUG is required")
		return errUsage
	}
	var expiresAt time.Time
	if expires != nil && *expires != "" {
		t, err := time.Parse(time.RFC3339, *expires)
		if err != nil || !clock.Representable(t) {
			fmt.Fprintf(env.Stderr, "keys create: --expires-at %q is not an RFC 3339 time between the years 0001 and 9999\n", *expires)
			return errUsage
		}
		expiresAt = t
	}
	if args[0] == "revoke" && *name == "" {
		fmt.Fprintln(env.Stderr, "keys revoke: --name is required")
		return errUsage
	}
	store, acct, err := openAccount(ctx, *f.dsn, *slug)
	if err != nil {
		return err
	}
	defer store.Close()
	now := env.Clock.Now()
	switch args[0] {
	case "create":
		n, err := account.KeyName(*name)
		if err != nil {
			return err
		}
		if n == "" {
			n = "api-key-" + now.Format("20060102-150405")
		}
		var key string
		err = store.Transact(ctx, func(tx *db.Tx) error {
			var err error
			key, err = account.InsertKey(ctx, tx, acct, account.NewKey{Name: n, ExpiresAt: expiresAt}, now)
			return err
		})
		if err != nil {
			return err
		}
		fmt.Fprintln(env.Stdout, key)
	case "list":
		keys, err := account.ListKeys(ctx, store, acct)
		if err != nil {
			return err
		}
		if *asJSON {
			if keys == nil {
				keys = []account.Key{}
			}
			return json.NewEncoder(env.Stdout).Encode(keys)
		}
		tw := tabwriter.NewWriter(env.Stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tPREFIX\tCREATED\tEXPIRES\tREVOKED\tLAST USED")
		for _, k := range keys {
			fmt.Fprintf(tw, "%s\t%s…\t%s\t%s\t%v\t%s\n", k.Name, k.Prefix, k.CreatedAt.Format(time.RFC3339), optTime(k.ExpiresAt), k.Revoked, optTime(k.LastUsedAt))
		}
		return tw.Flush()
	case "revoke":
		n, err := account.RevokeKey(ctx, store, acct, *name, now)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "revoked %d key(s) named %q\n", n, *name)
	}
	return nil
}

func optTime(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.Format(time.RFC3339)
}
