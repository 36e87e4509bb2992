package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"

	nova "github.com/nova-dev/nova"
	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui"
	chatpage "github.com/nova-dev/nova/tui/pages/chat"
)

// rootCmd is `nova`: the TUI, and every command group.
func rootCmd(env *Env) *cobra.Command {
	opts := &tuiOptions{Env: env}
	root := &cobra.Command{
		Use:   "nova",
		Short: "A terminal workbench for local-LLM coding agents",
		Long: "nova runs a team of specialised agents on models served by Ollama.\n" +
			"Run it inside a project: with no command it opens the TUI on the nearest .nova/ workspace.",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownCommand(cmd, args[0])
			}
			return nil
		},
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runTUI(cmd.Context(), opts)
		},
	}
	root.PersistentFlags().StringVarP(&env.WorkspaceDir, "workspace", "w", "", "workspace directory (default: nearest .nova/ above the current directory, or $NOVA_WORKSPACE)")
	root.Flags().BoolVar(&opts.InitMissing, "init", false, "create .nova/ in the current directory when no workspace is found")
	root.AddCommand(newInitCmd(env, nil), newVersionCmd(env, nil), newDoctorCmd(env, nil), newDBCmd(env), newServeCmd(env, nil))
	root.AddCommand(newImportCmd(env))
	root.AddCommand(newVaultCmd(env), newWisdomCmd(env))
	root.AddCommand(newAgentCmd(env), newAgentsCmd(env), newChangesCmd(env), newChatCmd(env))
	root.AddCommand(newPlaybookCmd(env))
	root.AddCommand(newBuildCmd(env), newPlanCmd(env, nil), newRunCmd(env, nil))
	root.AddCommand(newRehearseCmd(env, nil), newRehearsalCmd(env))
	root.AddCommand(newDocsCmd(env), newFactsCmd(env), newKnowledgeCmd(env))
	root.AddCommand(newSkillsCmd(env), newWorkflowCmd(env), newBlueprintCmd(env))
	root.AddCommand(newMCPCmd(env))
	root.AddCommand(newHubCmd(env, nil), newTeamCmd(env))
	root.AddCommand(newMapCmd(env, nil, nil))
	guideUsage(root)
	return root
}

// tuiOptions is `nova` with no command.
type tuiOptions struct {
	*Env
	InitMissing bool
}

func runTUI(ctx context.Context, opts *tuiOptions) error {
	rootDir, err := opts.root()
	if err != nil && (!opts.InitMissing || !errors.Is(err, workspace.ErrNotFound)) {
		return err
	}
	if err := opts.Terminal(); err != nil {
		// Checked before --init creates anything, so it does not leave
		// half its work done.
		return usagef("the TUI needs a terminal and this process has none (%v).\n"+
			"Run `nova` in a terminal; without one, use the commands: `nova init [DIR]` creates a workspace,\n"+
			"`nova doctor` checks it, `nova build run PRD --headless` runs a build (`nova --help` lists them all)", err)
	}
	if errors.Is(err, workspace.ErrNotFound) && opts.InitMissing && opts.WorkspaceDir == "" {
		rep, ierr := workspace.Init(opts.Cwd, nova.Defaults)
		if ierr != nil {
			return ierr
		}
		if _, err := seedStarter(ctx, opts.Env, rep.Root); err != nil {
			return err
		}
		opts.IO.Logf("created %s\n", filepath.Join(rep.Root, workspace.DirName))
		warnUnreadable(opts.IO, rep)
		if line := checksLine(rep); line != "" {
			opts.IO.Logf("%s\n", line)
		}
		rootDir, err = rep.Root, nil
		opts.WorkspaceDir = rootDir
	}
	if err != nil {
		return err
	}
	opts.fullScreen = true
	opts.tuiRunning.Store(true)
	// slog lines (engine warnings) wait until the screen is given back.
	release := holdSlog(opts.IO.ErrOut)
	defer release()
	// The TUI owns the workspace (serving the other nova processes) or is
	// the client of the nova that does; its link shows which, hands the
	// workspace over on quit and takes it over when its owner goes away.
	s, link, err := joinForTUI(ctx, opts.Env)
	if err != nil {
		return err
	}
	defer func() { _ = s.ws.Close() }()

	reg := themes.NewRegistry()
	themeErrs := reg.LoadDir(filepath.Join(rootDir, workspace.DirName, "themes"))
	// The program's context is not the workspace's: a quit ends the
	// program, and the workspace closes after it (interrupting what runs
	// here, unless it was handed over).
	m := tui.New(ctx, s.ws, tui.Options{Themes: reg, ThemeErrors: themeErrs, Link: link, Start: chatpage.ID})
	p := tea.NewProgram(m, tea.WithContext(ctx))
	if _, err := p.Run(); err != nil && !errors.Is(err, tea.ErrProgramKilled) && !engine.IsCanceled(err) {
		return fmt.Errorf("tui: %w", err)
	}
	if note := m.ExitNote(); note != "" {
		opts.IO.Logf("%s\n", note)
	}
	return nil
}
