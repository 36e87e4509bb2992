package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/tools"
)

func newSkillsCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "skills",
		Short: "List, show and run skills: named sequences of tool calls (no model)",
		Long: "A skill is a versioned sequence of tool calls whose arguments come from its inputs and the\n" +
			"results of earlier steps. Skills never call a model; they run through the same tool registry\n" +
			"as agents (same confinement, permissions and staging). Built-ins ship with nova; your own\n" +
			"are YAML files in .nova/skills/ (see .nova/skills/README.md).",
	}
	cmd.AddCommand(newSkillsListCmd(env, nil), newSkillsShowCmd(env, nil), newSkillsRunCmd(env, nil))
	return cmd
}

// skillsListOptions is `nova skills list`.
type skillsListOptions struct {
	*Env
	Agent string
	JSON  bool
}

func newSkillsListCmd(env *Env, runF func(context.Context, *skillsListOptions) error) *cobra.Command {
	opts := &skillsListOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the skills (built-ins and .nova/skills/)",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return pick(runF, runSkillsList)(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Agent, "agent", "", "only the skills this agent may run")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {skills, problems} as JSON")
	return cmd
}

func runSkillsList(ctx context.Context, opts *skillsListOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		list, err := ws.ListSkills(ctx, opts.Agent)
		if err != nil {
			return libraryErr(err)
		}
		printProblems(opts.IO, "skill", list.Problems)
		if opts.JSON {
			return opts.IO.PrintJSON(list)
		}
		if len(list.Skills) == 0 {
			opts.IO.Printf("no skills for %s\n", opts.Agent)
			return nil
		}
		tw := tabwriter.NewWriter(opts.IO.Human(), 0, 0, 2, ' ', 0)
		_, _ = fmt.Fprintln(tw, "NAME\tVERSION\tAGENTS\tSOURCE\tDESCRIPTION")
		for _, s := range list.Skills {
			who := "all"
			if len(s.Agents) > 0 {
				who = strings.Join(s.Agents, ",")
			}
			_, _ = fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.Name, s.Version, who, sourceLabel(s.Source, opts.Env), clipLine(s.Description, 60))
		}
		return tw.Flush()
	})
}

// sourceLabel shows "builtin" or a file relative to the command's directory.
func sourceLabel(src string, env *Env) string {
	if src == "" || src == "builtin" {
		return "builtin"
	}
	if rel, ok := strings.CutPrefix(src, env.Cwd+"/"); ok {
		return rel
	}
	return src
}

// skillsShowOptions is `nova skills show NAME`.
type skillsShowOptions struct {
	*Env
	Name string
	JSON bool
}

func newSkillsShowCmd(env *Env, runF func(context.Context, *skillsShowOptions) error) *cobra.Command {
	opts := &skillsShowOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "show NAME",
		Short: "Show a skill: its agents, inputs, steps and file",
		Args:  exactArgs(1, "a skill name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			return pick(runF, runSkillsShow)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {skill, builtin, yaml} as JSON")
	return cmd
}

func runSkillsShow(ctx context.Context, opts *skillsShowOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		d, err := ws.GetSkill(ctx, opts.Name)
		if err != nil {
			return libraryErr(err)
		}
		if opts.JSON {
			return opts.IO.PrintJSON(d)
		}
		s := d.Skill
		p := opts.IO.Printf
		p("%s %s — %s\n", s.Name, s.Version, s.Description)
		who := "every agent"
		if len(s.Agents) > 0 {
			who = strings.Join(s.Agents, ", ")
		}
		p("agents:  %s\nsource:  %s\ntools:   %s\n", who, sourceLabel(s.Source, opts.Env), strings.Join(s.Tools(), ", "))
		if len(s.Inputs) > 0 {
			p("\ninputs (* required):\n")
			for _, in := range s.Inputs {
				p("  %s\n", paramLine(in))
			}
		}
		p("\nsteps:\n")
		for i, st := range s.Steps {
			p("  %d. %s (%s)\n", i+1, st.Name, st.Tool)
			for _, k := range sortedKeys(st.Args) {
				p("       %s: %s\n", k, clipLine(fmt.Sprint(st.Args[k]), 100))
			}
			if v := st.Validate; v != nil {
				var checks []string
				for _, c := range []struct{ name, val string }{{"contains", v.Contains}, {"notContains", v.NotContains}, {"matches", v.Matches}, {"notMatches", v.NotMatches}} {
					if c.val != "" {
						checks = append(checks, fmt.Sprintf("%s %q", c.name, c.val))
					}
				}
				if len(checks) > 0 {
					p("       validate: %s\n", strings.Join(checks, ", "))
				}
			}
		}
		if d.YAML != "" {
			p("\n%s\n", indent(d.YAML, "  "))
		}
		return nil
	})
}

// skillsRunOptions is `nova skills run NAME`.
type skillsRunOptions struct {
	*Env
	Name   string
	Inputs []string
	Agent  string
	// Full prints every line of each step's output.
	Full bool
	// Yes approves the commands a runCommand step wants to run.
	Yes  bool
	JSON bool
}

func newSkillsRunCmd(env *Env, runF func(context.Context, *skillsRunOptions) error) *cobra.Command {
	opts := &skillsRunOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "run NAME",
		Short: "Run a skill's steps and print each step's result (exit 1 when a step fails)",
		Long: "Runs the skill as an agent would (its permissions, confinement and staging), recorded as an\n" +
			"agent run with one trace per step. A required input you did not pass with --input is asked\n" +
			"for on a terminal; off a terminal the command exits 2 naming it. Writes are staged in a\n" +
			"changeset (`nova changes show ID`).",
		Args: exactArgs(1, "a skill name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			return pick(runF, runSkillsRun)(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringArrayVar(&opts.Inputs, "input", nil, "an input as name=value (repeatable)")
	cmd.Flags().StringVar(&opts.Agent, "agent", "", "the agent whose permissions apply (default: the skill's first agent)")
	cmd.Flags().BoolVar(&opts.Full, "full", false, "print every line of each step's output")
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "approve the commands the skill's steps want to run")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the result as JSON")
	return cmd
}

func runSkillsRun(ctx context.Context, opts *skillsRunOptions) error {
	inputs, err := parseSets(opts.Inputs, "--input")
	if err != nil {
		return err
	}
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		d, err := ws.GetSkill(ctx, opts.Name)
		if err != nil {
			return libraryErr(err)
		}
		if err := opts.fillParams(ctx, d.Skill.Inputs, inputs, "--input", "input", !opts.JSON); err != nil {
			return err
		}
		op := engine.NewOp()
		ro := engine.SkillRunOptions{Agent: opts.Agent, Inputs: inputs, Op: op}
		switch {
		case opts.Yes:
			ro.Approvals = engine.ApproveAll
		case !opts.IO.InTTY:
			ro.Approvals = engine.ApproveNone
		}
		subCtx, stopSub := context.WithCancel(context.WithoutCancel(ctx))
		defer stopSub()
		events := followEvents(subCtx, ws) // subscribes again if the owner drops this stream
		ask := approvalFollower{env: opts.Env, ws: ws}
		go func() {
			for ev := range events {
				if ev.Type == engine.EventDropped {
					opts.IO.Logf("%s (reconnected)\n", ev.Text)
					continue
				}
				if ev.Op == op && ev.Type == engine.EventNeedsApproval && ev.Approval != nil && ro.Approvals == engine.ApproveAsk {
					ask.answer(ctx, *ev.Approval)
				}
			}
		}()
		res, err := ws.RunSkill(ctx, opts.Name, ro)
		stopSub()
		if err != nil {
			return libraryErr(err)
		}
		if opts.JSON {
			if err := opts.IO.PrintJSON(res); err != nil {
				return err
			}
		} else {
			printSkillResult(opts.IO, res, opts.Full)
		}
		if !res.Success {
			if opts.JSON {
				return &reportedError{msg: "skill failed"}
			}
			return fmt.Errorf("skill %s failed at step %q", res.Skill, res.FailedStep)
		}
		return nil
	})
}

// skillOutputLines is how much of each step's output `skills run` prints
// without --full.
const skillOutputLines = 20

func printSkillResult(io *IOStreams, res engine.SkillRunResult, full bool) {
	p := io.Printf
	p("skill %s %s as %s: %d/%d steps\n\n", res.Skill, res.Version, res.Agent, res.StepsCompleted, res.TotalSteps)
	if len(res.MissingTools) > 0 {
		p("✗ missing tools: %s\n", strings.Join(res.MissingTools, ", "))
	}
	for _, st := range res.Steps {
		if st.Status == tools.StatusOK && st.Error == "" {
			p("✓ %s (%s)  %s\n", st.Name, st.Tool, durationText(st.Duration))
		} else {
			p("✗ %s (%s)  %s\n", st.Name, st.Tool, st.Status)
		}
		if args := compactArgs(st.Args); args != "" {
			p("    args: %s\n", clipLine(args, 120))
		}
		out := st.Output
		n := skillOutputLines
		if full {
			n = 0
		}
		if text, cut := firstLines(out, n); strings.TrimSpace(text) != "" {
			p("%s\n", indent(text, "    │ "))
			if cut {
				p("    │ … (%d more lines; --full shows them)\n", strings.Count(strings.TrimRight(out, "\n"), "\n")+1-n)
			}
		}
		if st.Error != "" {
			p("    error: %s\n", st.Error)
		}
		p("\n")
	}
	if !res.Success {
		at := res.FailedStep
		if at == "" {
			at = "the start"
		}
		p("✗ Failed at step %q: %s\n", at, res.Error)
	}
	p("run #%d: %s, %s", res.RunID, plural(len(res.Steps), "trace", "traces"), durationText(time.Duration(res.DurationMs)*time.Millisecond))
	if res.ChangesetID != 0 {
		p(" · changeset %d staged (`nova changes show %d`)", res.ChangesetID, res.ChangesetID)
	}
	p("\n")
}

// compactArgs shows a step's canonical JSON arguments on one line.
func compactArgs(args string) string {
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) != nil || len(m) == 0 {
		return ""
	}
	parts := make([]string, 0, len(m))
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s=%v", k, m[k]))
	}
	return strings.Join(parts, " ")
}
