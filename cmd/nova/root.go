package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"

	nova "github.com/nova-dev/nova"
	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui"
)

func (a *app) rootCmd() *cobra.Command {
	var initMissing bool
	root := &cobra.Command{
		Use:   "nova",
		Short: "A terminal workbench for local-LLM coding agents",
		Long: "nova runs a team of specialised agents on models served by Ollama.\n" +
			"Run it inside a project: with no command it opens the TUI on the nearest .nova/ workspace.",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown command %q for nova (see `nova --help`)", args[0])
			}
			return nil
		},
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runTUI(cmd, initMissing)
		},
	}
	root.PersistentFlags().StringVarP(&a.workspaceFlag, "workspace", "w", "", "workspace directory (default: nearest .nova/ above the current directory, or $NOVA_WORKSPACE)")
	root.Flags().BoolVar(&initMissing, "init", false, "create .nova/ in the current directory when no workspace is found")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })
	root.AddCommand(a.initCmd(), a.versionCmd(), a.doctorCmd(), a.dbCmd())
	root.AddCommand(a.importCmd())
	root.AddCommand(a.vaultCmd(), a.wisdomCmd())
	root.AddCommand(a.agentCmd(), a.agentsCmd(), a.changesCmd())
	root.AddCommand(a.playbookCmd())
	root.AddCommand(a.buildCmd(), a.planCmd())
	root.AddCommand(a.rehearseCmd(), a.rehearsalCmd())
	return root
}

func (a *app) runTUI(cmd *cobra.Command, initMissing bool) error {
	ctx := cmd.Context()
	rootDir, err := a.root()
	if errors.Is(err, workspace.ErrNotFound) && initMissing && a.workspaceFlag == "" {
		cwd, _ := os.Getwd()
		rep, ierr := workspace.Init(cwd, nova.Defaults)
		if ierr != nil {
			return ierr
		}
		if err := a.seed(ctx, rep.Root); err != nil {
			return err
		}
		a.logf("created %s\n", filepath.Join(rep.Root, workspace.DirName))
		rootDir, err = rep.Root, nil
	}
	if err != nil {
		return err
	}
	ws, err := engine.Open(ctx, engine.Options{Root: rootDir, Getenv: a.getenv})
	if err != nil {
		return err
	}
	defer func() { _ = ws.Close() }()

	reg := themes.NewRegistry()
	themeErrs := reg.LoadDir(filepath.Join(rootDir, workspace.DirName, "themes"))
	m := tui.New(ctx, ws, tui.Options{Themes: reg, ThemeErrors: themeErrs})
	p := tea.NewProgram(m, tea.WithContext(ctx))
	if _, err := p.Run(); err != nil && !errors.Is(err, tea.ErrProgramKilled) && !engine.IsCanceled(err) {
		return fmt.Errorf("tui: %w", err)
	}
	return nil
}
