package main

import (
	"runtime"

	"github.com/spf13/cobra"
)

func (a *app) versionCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print nova's version",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(*cobra.Command, []string) error {
			v := struct {
				Version string `json:"version"`
				Commit  string `json:"commit,omitempty"`
				Go      string `json:"go"`
				OS      string `json:"os"`
				Arch    string `json:"arch"`
			}{version, commit, runtime.Version(), runtime.GOOS, runtime.GOARCH}
			if asJSON {
				return a.printJSON(v)
			}
			a.printf("nova %s", v.Version)
			if v.Commit != "" {
				a.printf(" (%s)", v.Commit)
			}
			a.printf(" %s %s/%s\n", v.Go, v.OS, v.Arch)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}
