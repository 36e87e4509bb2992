package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/workspace"
)

// The agents commands read .nova/agents directly and never open the
// database, so they work while another nova holds it.

func (a *app) agentsCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "agents", Short: "List, show and validate the agent definitions (.nova/agents)"}
	var asJSON bool

	list := &cobra.Command{
		Use:   "list",
		Short: "List the agents of the workspace",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(_ *cobra.Command, _ []string) error {
			roster, errs, _, err := a.loadAgents("")
			if err != nil {
				return err
			}
			if len(errs) > 0 {
				a.logf("warning: %d problem(s) in agent files; those agents are left out (see `nova agents validate`)\n", len(errs))
			}
			specs := roster.List()
			if asJSON {
				if specs == nil {
					specs = []agents.Spec{}
				}
				return a.printJSON(specs)
			}
			if len(specs) == 0 {
				a.printf("no agents (add .nova/agents/<ID>.yaml files, or run `nova init`)\n")
				return nil
			}
			a.printf("%-10s %-12s %-14s %-6s %s\n", "ID", "NAME", "TIER", "TOOLS", "DESCRIPTION")
			for _, s := range specs {
				a.printf("%-10s %-12s %-14s %-6d %s\n", s.ID, clipLine(s.Display.Name, 12),
					string(s.Tier)+"→"+string(s.MaxTier), len(s.Tools), clipLine(s.Display.Description, 70))
			}
			return nil
		},
	}

	show := &cobra.Command{
		Use:   "show ID",
		Short: "Show one agent's definition",
		Args:  exactArgs(1, "an agent id"),
		RunE: func(_ *cobra.Command, args []string) error {
			roster, errs, _, err := a.loadAgents("")
			if err != nil {
				return err
			}
			s, err := roster.Get(args[0])
			if err != nil {
				for _, e := range errs {
					var se *agents.SpecError
					if errors.As(e, &se) && strings.EqualFold(strings.TrimSuffix(filepath.Base(se.File), filepath.Ext(se.File)), args[0]) {
						return fmt.Errorf("agent %s is invalid: %w", args[0], e)
					}
				}
				return fmt.Errorf("%w (known: %s)", err, strings.Join(roster.IDs(), ", "))
			}
			if asJSON {
				return a.printJSON(s)
			}
			a.printf("%s — %s %s\n%s\n\n", s.ID, s.Display.Name, s.Display.Emoji, s.Display.Description)
			if s.Domain != "" {
				a.printf("domain:     %s\n", s.Domain)
			}
			a.printf("tier:       %s (may escalate to %s)\n", s.Tier, s.MaxTier)
			a.printf("tools:      %s\n", strings.Join(s.Tools, ", "))
			a.printf("limits:     %d steps, %d tool calls, %s\n", s.Limits.MaxSteps, s.Limits.MaxToolCalls, s.Limits.Timeout)
			if s.ForcedReasoningInterval > 0 {
				a.printf("reasoning:  forced every %d tool calls\n", s.ForcedReasoningInterval)
			}
			a.printf("file:       %s\n\nrole:\n%s\n", s.Source, indent(s.Role, "  "))
			if s.StaticContext != "" {
				a.printf("\nstatic context:\n%s\n", indent(s.StaticContext, "  "))
			}
			for i, ex := range s.Examples {
				a.printf("\nexample %d:\n  input: %s\n  output:\n%s\n", i+1, ex.Input, indent(ex.Output, "    "))
			}
			return nil
		},
	}

	validate := &cobra.Command{
		Use:   "validate [DIR]",
		Short: "Check every agent file and print every problem (exit 1 if any file is invalid)",
		Args:  maxArgs(1, "one directory"),
		RunE: func(_ *cobra.Command, args []string) error {
			dir := ""
			if len(args) == 1 {
				dir = args[0]
			}
			roster, errs, dir, err := a.loadAgents(dir)
			if err != nil {
				return err
			}
			files := countSpecFiles(dir)
			if asJSON {
				type problem struct {
					File    string `json:"file"`
					Line    int    `json:"line"`
					Field   string `json:"field"`
					Message string `json:"message"`
				}
				probs := []problem{}
				for _, e := range errs {
					var se *agents.SpecError
					if errors.As(e, &se) {
						probs = append(probs, problem{File: se.File, Line: se.Line, Field: se.Field, Message: se.Msg})
					} else {
						probs = append(probs, problem{Message: e.Error()})
					}
				}
				ids := roster.IDs()
				if ids == nil {
					ids = []string{}
				}
				if err := a.printJSON(map[string]any{
					"ok": len(errs) == 0, "dir": dir, "files": files, "valid": ids, "errors": probs,
				}); err != nil {
					return err
				}
			} else {
				for _, e := range errs {
					a.printf("%v\n", e)
				}
				a.printf("%d agent file(s) in %s: %d valid, %d problem(s)\n", files, dir, roster.Len(), len(errs))
			}
			if len(errs) > 0 {
				return &reportedError{msg: fmt.Sprintf("%d problem(s) in agent files", len(errs))}
			}
			return nil
		},
	}
	for _, c := range []*cobra.Command{list, show, validate} {
		c.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
		cmd.AddCommand(c)
	}
	return cmd
}

// loadAgents loads dir, or the workspace's .nova/agents when dir is empty.
// A directory that cannot be read is an error (not a list of problems).
func (a *app) loadAgents(dir string) (*agents.Roster, []error, string, error) {
	if dir == "" {
		root, err := a.root()
		if err != nil {
			return nil, nil, "", err
		}
		dir = filepath.Join(root, workspace.DirName, "agents")
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, nil, dir, fmt.Errorf("agents directory: %w", err)
	}
	if !fi.IsDir() {
		return nil, nil, dir, fmt.Errorf("agents directory: %s is not a directory", dir)
	}
	roster, errs := agents.Load(dir)
	return roster, errs, dir, nil
}

func countSpecFiles(dir string) int {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if !e.IsDir() && !strings.HasPrefix(e.Name(), ".") && (ext == ".yaml" || ext == ".yml") {
			n++
		}
	}
	return n
}
