package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/prd"
)

func (a *app) planCmd() *cobra.Command {
	var (
		asJSON bool
		out    string
	)
	cmd := &cobra.Command{
		Use:   "plan GOAL",
		Short: "Ask SUN for a PRD for a goal, validate it and save it to .nova/prds/ for review",
		Args:  exactArgs(1, "a goal (quote it)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			goal := strings.TrimSpace(args[0])
			if goal == "" {
				return usagef("the goal is empty")
			}
			ws, err := a.open(cmd.Context(), false)
			if err != nil {
				return err
			}
			defer func() { _ = ws.Close() }()
			roster, _ := ws.Agents()
			var agentsList []string
			system := ""
			for _, s := range roster.List() {
				agentsList = append(agentsList, s.ID+": "+clipLine(s.Role, 100))
				if strings.EqualFold(s.ID, "SUN") {
					system = s.Role
				}
			}
			cfg := ws.Config()
			model := cfg.Models.Large
			if model == "" {
				model = cfg.Models.Medium
			}
			if !asJSON {
				a.logf("asking SUN (%s) for a plan…\n", model)
			}
			p, err := build.Plan(cmd.Context(), ws.LLM(), build.PlanRequest{Goal: goal, Model: model, Agents: agentsList,
				KnownAgent: roster.Has, System: system})
			if err != nil {
				var ve *prd.ValidationError
				if p != nil && errors.As(err, &ve) {
					// Keep the rejected plan for inspection, never under prds/.
					if path, serr := build.SavePlan(filepath.Join(ws.Dir(), "prds", "rejected"), p); serr == nil {
						return fmt.Errorf("%w\n(the rejected plan is in %s)", err, path)
					}
				}
				return err
			}
			dir := filepath.Join(ws.Dir(), "prds")
			if p.Meta.Name == "" {
				p.Meta.Name = goal
			}
			var path string
			if out != "" {
				path = out
				err = p.Save(out)
			} else {
				path, err = build.SavePlan(dir, p)
			}
			if err != nil {
				return fmt.Errorf("save plan: %w", err)
			}
			if asJSON {
				return a.printJSON(struct {
					Path string   `json:"path"`
					PRD  *prd.PRD `json:"prd"`
				}{path, p})
			}
			a.printf("saved %s (%d tasks in %d phases)\n", path, len(p.Tasks), len(p.Phases()))
			for _, t := range p.Tasks {
				a.printf("  %-8s phase %d  %-8s %s\n", t.ID, t.Phase, t.Agent, clipLine(t.Title, 60))
			}
			a.printf("review it, then: nova build run %s\n", path)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print {path, prd} as JSON")
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the PRD to this file instead of .nova/prds/")
	return cmd
}
