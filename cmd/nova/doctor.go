package main

import (
	"context"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/owner"
)

// doctorOptions is `nova doctor`. Doctor reads files and probes Ollama; it
// never takes the database's write lock, so it works beside any owner.
type doctorOptions struct {
	*Env
	JSON bool
}

func newDoctorCmd(env *Env, runF func(context.Context, *doctorOptions) error) *cobra.Command {
	opts := &doctorOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the workspace, config, database and Ollama",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return pick(runF, runDoctor)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {checks:[{name,ok,status,detail}],owner} as JSON")
	return cmd
}

// doctorReport is `nova doctor --json`: the engine's report and the
// owner of the workspace (null when none).
type doctorReport struct {
	engine.DoctorReport
	Owner *owner.Info `json:"owner"`
}

func runDoctor(ctx context.Context, opts *doctorOptions) error {
	dopts := engine.DoctorOptions{Explicit: opts.WorkspaceDir, Start: opts.Cwd, Getenv: opts.Getenv}
	var own *owner.Info
	// Probe first: a live owner holds the database's lock, so the check
	// goes through it instead of opening the file.
	if root, err := opts.root(); err == nil {
		if info, err := owner.Probe(ctx, root, opts.Version); err == nil {
			info.Clients = info.Others() // its own connections are not other novas
			own = &info
			dopts.Owner = owner.Describe(info)
			dopts.Served = func(ctx context.Context, fn func(engine.Workspace) error) error {
				return opts.withWorkspace(ctx, fn)
			}
		}
	}
	rep := doctorReport{DoctorReport: engine.Doctor(ctx, dopts), Owner: own}
	if opts.JSON {
		if err := opts.IO.PrintJSON(rep); err != nil {
			return err
		}
	} else {
		printChecks(opts.IO, rep.Checks)
		if len(rep.Ollama.Models) > 0 {
			opts.IO.Printf("\nmodels in Ollama:\n")
			for _, m := range rep.Ollama.Models {
				opts.IO.Printf("  %-32s %-8s %s\n", m.Name, m.ParameterSize, m.Quantization)
			}
		}
	}
	if !rep.OK {
		return &reportedError{msg: "doctor found problems"}
	}
	return nil
}

// printChecks prints one line per check, the details in one column as wide
// as the longest name needs ("capabilities" included), hints under them.
func printChecks(io *IOStreams, checks []engine.Check) {
	col := 9
	for _, c := range checks {
		col = max(col, utf8.RuneCountInString(c.Name))
	}
	for _, c := range checks {
		mark := map[string]string{"pass": "✓", "warn": "!", "fail": "✗", "skip": "-"}[c.Status]
		io.Printf("%s %-*s %s\n", mark, col, c.Name, c.Detail)
		if c.Hint != "" && c.Status != "pass" {
			io.Printf("  %-*s → %s\n", col, "", c.Hint)
		}
	}
}
