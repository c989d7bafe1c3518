package main

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/retention"
)

// cmdRetention handles "frontdesk retention run --account SLUG [--dry-run]":
// the account's daily retention run, now (docs/retention.md). --dry-run
// counts what would go and changes nothing.
func cmdRetention(ctx context.Context, args []string, env *Env) error {
	if _, err := subcommand(args, env, "usage: frontdesk retention run --account SLUG [--dry-run] [--json]\n", "run"); err != nil {
		return err
	}
	f := newFlags("retention run", env)
	slug := f.String("account", "", "account slug")
	dry := f.Bool("dry-run", false, "say what would go (counts per kind and cut-off dates) without changing anything")
	asJSON := f.Bool("json", false, "print the report as JSON")
	if err := f.parse(args[1:]); err != nil {
		return err
	}
	if *slug == "" {
		fmt.Fprintln(env.Stderr, "retention run: --account SLUG is required")
		return errUsage
	}
	store, acct, err := openAccount(ctx, *f.dsn, *slug)
	if err != nil {
		return err
	}
	defer store.Close()
	rep, err := retention.Run(ctx, store, acct, env.Clock.Now(), *dry)
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(env.Stdout).Encode(rep)
	}
	if len(rep.Results) == 0 {
		fmt.Fprintf(env.Stdout, "%s keeps everything forever: its workspace file sets no account.retention\n", acct.Slug)
		return nil
	}
	verb := "REMOVED"
	if *dry {
		verb = "WOULD GO"
		fmt.Fprintf(env.Stdout, "dry run for %s at %s: nothing was changed\n", acct.Slug, clock.Format(rep.At))
	} else {
		fmt.Fprintf(env.Stdout, "retention run for %s at %s\n", acct.Slug, clock.Format(rep.At))
	}
	tw := tabwriter.NewWriter(env.Stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "KIND\tKEEP\tOLDER THAN\t%s\n", verb)
	for _, r := range rep.Results {
		what := "rows"
		if r.Kind == retention.Messages {
			what = "blanked"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d %s\n", r.Kind, r.Period, clock.Format(r.Cutoff), r.Count, what)
	}
	return tw.Flush()
}
