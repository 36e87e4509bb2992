package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine"
)

func (a *app) doctorCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the workspace, config, database and Ollama",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cwd, _ := os.Getwd()
			rep := engine.Doctor(cmd.Context(), engine.DoctorOptions{Explicit: a.workspaceFlag, Start: cwd, Getenv: a.getenv})
			if asJSON {
				if err := a.printJSON(rep); err != nil {
					return err
				}
			} else {
				for _, c := range rep.Checks {
					mark := map[string]string{"pass": "✓", "warn": "!", "fail": "✗", "skip": "-"}[c.Status]
					a.printf("%s %-9s %s\n", mark, c.Name, c.Detail)
					if c.Hint != "" && c.Status != "pass" {
						a.printf("  %-9s → %s\n", "", c.Hint)
					}
				}
				if len(rep.Ollama.Models) > 0 {
					a.printf("\nmodels in Ollama:\n")
					for _, m := range rep.Ollama.Models {
						a.printf("  %-32s %-8s %s\n", m.Name, m.ParameterSize, m.Quantization)
					}
				}
			}
			if !rep.OK {
				return &reportedError{msg: "doctor found problems"}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print {checks:[{name,ok,detail}]} as JSON")
	return cmd
}
