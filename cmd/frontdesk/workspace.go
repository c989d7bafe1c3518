package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/frontdesk/frontdesk/internal/password"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

func cmdWorkspace(ctx context.Context, args []string, env *Env) error {
	if _, err := subcommand(args, env, "usage: frontdesk workspace apply -f FILE|-\n", "apply"); err != nil {
		return err
	}
	f := newFlags("workspace apply", env)
	file := f.String("f", "", "workspace file (YAML or JSON); - reads stdin")
	if err := f.parse(args[1:]); err != nil {
		return err
	}
	if *file == "" {
		fmt.Fprintln(env.Stderr, "workspace apply: -f FILE is required")
		return errUsage
	}
	var (
		data []byte
		err  error
	)
	if *file == "-" {
		data, err = io.ReadAll(env.Stdin)
	} else {
		data, err = os.ReadFile(*file)
	}
	if err != nil {
		return err
	}
	// Validate the file before touching the database: a bad file fails fast
	// even when the database is unreachable, and never migrates one.
	box, err := secretBox(env)
	if err != nil {
		return err
	}
	parsed, err := workspace.Parse(data)
	if err != nil {
		return err
	}
	if err := workspace.Validate(parsed, &workspace.Known{Targets: targets(env)}); err != nil && !onlyReferenceProblems(err) {
		return err
	}
	store, err := openStore(ctx, *f.dsn, nil)
	if err != nil {
		return err
	}
	defer store.Close()
	res, err := (&workspace.Applier{DB: store, Now: env.Clock.Now, HashPassword: password.Hash, Secrets: box, Getenv: env.Getenv, Targets: targets(env)}).ApplyFile(ctx, parsed)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(env.Stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(res)
}

// onlyReferenceProblems reports whether every problem is an unknown
// reference, which objects applied earlier may still satisfy.
func onlyReferenceProblems(err error) bool {
	werr, ok := err.(*workspace.Error)
	if !ok {
		return false
	}
	for _, p := range werr.Problems {
		if !workspace.IsReferenceProblem(p) {
			return false
		}
	}
	return true
}
