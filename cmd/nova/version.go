package main

import (
	"context"
	"runtime"

	"github.com/spf13/cobra"
)

// versionOptions is `nova version`.
type versionOptions struct {
	*Env
	JSON bool
}

func newVersionCmd(env *Env, runF func(context.Context, *versionOptions) error) *cobra.Command {
	opts := &versionOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print nova's version",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return pick(runF, runVersion)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print as JSON")
	return cmd
}

func runVersion(_ context.Context, opts *versionOptions) error {
	v := struct {
		Version string `json:"version"`
		Commit  string `json:"commit,omitempty"`
		Go      string `json:"go"`
		OS      string `json:"os"`
		Arch    string `json:"arch"`
	}{opts.Version, opts.Commit, runtime.Version(), runtime.GOOS, runtime.GOARCH}
	if opts.JSON {
		return opts.IO.PrintJSON(v)
	}
	opts.IO.Printf("nova %s", v.Version)
	if v.Commit != "" {
		opts.IO.Printf(" (%s)", v.Commit)
	}
	opts.IO.Printf(" %s %s/%s\n", v.Go, v.OS, v.Arch)
	return nil
}
