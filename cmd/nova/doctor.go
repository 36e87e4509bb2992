package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine"
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
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {checks:[{name,ok,detail}]} as JSON")
	return cmd
}

func runDoctor(ctx context.Context, opts *doctorOptions) error {
	rep := engine.Doctor(ctx, engine.DoctorOptions{Explicit: opts.WorkspaceDir, Start: opts.Cwd, Getenv: opts.Getenv})
	if opts.JSON {
		if err := opts.IO.PrintJSON(rep); err != nil {
			return err
		}
	} else {
		for _, c := range rep.Checks {
			mark := map[string]string{"pass": "✓", "warn": "!", "fail": "✗", "skip": "-"}[c.Status]
			opts.IO.Printf("%s %-9s %s\n", mark, c.Name, c.Detail)
			if c.Hint != "" && c.Status != "pass" {
				opts.IO.Printf("  %-9s → %s\n", "", c.Hint)
			}
		}
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
