package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/library/blueprint"
	"github.com/nova-dev/nova/engine/library/params"
)

func newBlueprintCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "blueprint",
		Short: "Parameterised build plans: add, save from a build, list, show, use",
		Long: "A blueprint is a PRD template with typed parameters ({{ name }}, {% if … %}), versions, and\n" +
			"evidence from the builds made with it (success rate, average duration and tokens).\n" +
			"`nova blueprint use NAME --set k=v` renders a PRD; --run builds it.",
	}
	cmd.AddCommand(newBlueprintAddCmd(env, nil), newBlueprintSaveCmd(env, nil), newBlueprintListCmd(env, nil),
		newBlueprintShowCmd(env, nil), newBlueprintHistoryCmd(env, nil), newBlueprintUseCmd(env, nil))
	return cmd
}

// blueprintAddOptions is `nova blueprint add FILE`.
type blueprintAddOptions struct {
	*Env
	File, Note string
	JSON       bool
}

func newBlueprintAddCmd(env *Env, runF func(context.Context, *blueprintAddOptions) error) *cobra.Command {
	opts := &blueprintAddOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "add FILE",
		Short: "Store a blueprint file, or a new version of it (an unchanged file adds none)",
		Args:  exactArgs(1, "a blueprint file (YAML)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			return pick(runF, runBlueprintAdd)(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Note, "note", "", "what changed (default: computed)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {blueprint, created, changed} as JSON")
	return cmd
}

func runBlueprintAdd(ctx context.Context, opts *blueprintAddOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		res, err := ws.AddBlueprint(ctx, opts.abs(opts.File), opts.Note)
		if err != nil {
			return libraryErr(err)
		}
		if opts.JSON {
			return opts.IO.PrintJSON(res)
		}
		bp := res.Blueprint
		switch {
		case res.Created:
			opts.IO.Printf("added %s (version %d)\n", bp.Name, bp.Version)
		case res.Changed:
			opts.IO.Printf("%s → version %d: %s\n", bp.Name, bp.Version, bp.Versions[len(bp.Versions)-1].Changes)
		default:
			opts.IO.Printf("%s unchanged (version %d)\n", bp.Name, bp.Version)
		}
		return nil
	})
}

// blueprintSaveOptions is `nova blueprint save BUILD_ID --name N`.
type blueprintSaveOptions struct {
	*Env
	BuildID uint64
	Save    engine.SaveBlueprintOptions
	JSON    bool
}

func newBlueprintSaveCmd(env *Env, runF func(context.Context, *blueprintSaveOptions) error) *cobra.Command {
	opts := &blueprintSaveOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "save BUILD_ID --name N",
		Short: "Turn a finished build's PRD into a blueprint",
		Long: "Each --param name=type:default replaces the PRD's whole string values equal to the default by\n" +
			"{{ name }} (never parts of a value). Forms: route=string:/health, port=integer:8080,\n" +
			"tier=enum[free|premium]:free, name=orders (a string), name=string (required, no default).",
		Args: exactArgs(1, "a build id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := buildID(args[0])
			if err != nil {
				return err
			}
			opts.BuildID = id
			if opts.Save.Name == "" {
				return usagef("--name is required (a blueprint name such as http-endpoint)")
			}
			if !blueprint.ValidName(opts.Save.Name) {
				return usagef("--name %q: use lower-case letters, digits and dashes (e.g. http-endpoint)", opts.Save.Name)
			}
			for _, d := range opts.Save.Params {
				if _, err := blueprint.ParseParamDecl(d); err != nil {
					return usagef("--param: %v", err)
				}
			}
			return pick(runF, runBlueprintSave)(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Save.Name, "name", "", "the blueprint's name (required)")
	cmd.Flags().StringVar(&opts.Save.Description, "description", "", "what the blueprint builds")
	cmd.Flags().StringArrayVar(&opts.Save.Params, "param", nil, "a parameter as name=type:default (repeatable)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the result as JSON")
	return cmd
}

func runBlueprintSave(ctx context.Context, opts *blueprintSaveOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		res, err := ws.SaveBlueprint(ctx, opts.BuildID, opts.Save)
		if err != nil {
			return libraryErr(err)
		}
		for _, w := range res.Warnings {
			opts.IO.Logf("warning: %s\n", w)
		}
		if opts.JSON {
			return opts.IO.PrintJSON(res)
		}
		bp := res.Blueprint
		verb := "saved"
		if !res.Created && !res.Changed {
			verb = "unchanged:"
		}
		opts.IO.Printf("%s %s (version %d) from build %d", verb, bp.Name, bp.Version, opts.BuildID)
		var parts []string
		for _, k := range sortedKeys(res.Replaced) {
			parts = append(parts, fmt.Sprintf("%s replaced %s", k, plural(res.Replaced[k], "value", "values")))
		}
		if len(parts) > 0 {
			opts.IO.Printf(": %s", strings.Join(parts, ", "))
		}
		use := "nova blueprint use " + bp.Name
		for _, p := range bp.Spec.Parameters {
			use += " --set " + p.Name + "=…"
		}
		opts.IO.Printf("\nrender it with `%s`\n", use)
		return nil
	})
}

// blueprintListOptions is `nova blueprint list`.
type blueprintListOptions struct {
	*Env
	JSON bool
}

func newBlueprintListCmd(env *Env, runF func(context.Context, *blueprintListOptions) error) *cobra.Command {
	opts := &blueprintListOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the blueprints with their usage and success rate",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return pick(runF, runBlueprintList)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print a JSON array")
	return cmd
}

func runBlueprintList(ctx context.Context, opts *blueprintListOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		bs, err := ws.ListBlueprints(ctx)
		if err != nil {
			return err
		}
		if opts.JSON {
			if bs == nil {
				bs = []blueprint.Summary{}
			}
			return opts.IO.PrintJSON(bs)
		}
		if len(bs) == 0 {
			opts.IO.Printf("no blueprints yet: `nova blueprint add FILE`, or save a finished build with `nova blueprint save BUILD --name N`\n")
			return nil
		}
		tw := tabwriter.NewWriter(opts.IO.Human(), 0, 0, 2, ' ', 0)
		_, _ = fmt.Fprintln(tw, "NAME\tVER\tPARAMS\tUSES\tSUCCESS\tAVG TIME\tLAST USED\tDESCRIPTION")
		for _, b := range bs {
			_, _ = fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\n", b.Name, b.Version, b.Parameters, b.Status.UsageCount,
				successText(b.Evidence), avgText(b.Evidence), lastUsedText(b.Status.LastUsed), clipLine(b.Description, 40))
		}
		return tw.Flush()
	})
}

func successText(e blueprint.Evidence) string {
	if e.SuccessRate == nil {
		return "–"
	}
	return fmt.Sprintf("%.0f%% (%d/%d)", *e.SuccessRate*100, e.Succeeded, e.Finished)
}

func avgText(e blueprint.Evidence) string {
	if e.Finished == 0 {
		return "–"
	}
	return roundDuration(e.AvgDuration).String()
}

func lastUsedText(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.Local().Format("2006-01-02 15:04")
}

// blueprintShowOptions is `nova blueprint show NAME`.
type blueprintShowOptions struct {
	*Env
	Name string
	JSON bool
}

func newBlueprintShowCmd(env *Env, runF func(context.Context, *blueprintShowOptions) error) *cobra.Command {
	opts := &blueprintShowOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "show NAME",
		Short: "Show a blueprint: parameters, PRD template, evidence and recent uses",
		Args:  exactArgs(1, "a blueprint name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			return pick(runF, runBlueprintShow)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print as JSON")
	return cmd
}

func runBlueprintShow(ctx context.Context, opts *blueprintShowOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		d, err := ws.ShowBlueprint(ctx, opts.Name)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(d)
		}
		p := opts.IO.Printf
		p("%s (version %d of %d)\n", d.Name, d.Version, len(d.Versions))
		if d.Description != "" {
			p("%s\n", strings.TrimSpace(d.Description))
		}
		p("\nparameters (* required):\n")
		if len(d.Spec.Parameters) == 0 {
			p("  none\n")
		}
		for _, prm := range d.Spec.Parameters {
			p("  %s\n", paramLine(prm))
		}
		p("\nevidence: %s, %d finished, success %s, average %s and %d tokens\n", plural(d.Evidence.Builds, "build", "builds"), d.Evidence.Finished,
			successText(d.Evidence), avgText(d.Evidence), d.Evidence.AvgTokens)
		p("status:   used %s, last %s\n", plural(d.Status.UsageCount, "time", "times"), lastUsedText(d.Status.LastUsed))
		if len(d.Uses) > 0 {
			p("\nrecent uses:\n")
			for i, u := range d.Uses {
				if i == 10 {
					p("  … %d more\n", len(d.Uses)-10)
					break
				}
				var kv []string
				for _, k := range sortedKeys(u.Parameters) {
					kv = append(kv, fmt.Sprintf("%s=%v", k, u.Parameters[k]))
				}
				p("  build %-5d v%-3d %-8s %s  %s\n", u.BuildID, u.Version, u.Status, u.CreatedAt.Local().Format("2006-01-02 15:04"), clipLine(strings.Join(kv, " "), 60))
			}
		}
		if tmpl, err := prdTemplateText(d.Spec.PRD); err == nil {
			p("\nPRD template:\n%s\n", indent(tmpl, "  "))
		}
		return nil
	})
}

// prdTemplateText shows a blueprint's PRD template as YAML (through JSON,
// so that numbers keep the form they have in the PRD: 0, not 0.0).
func prdTemplateText(v any) (string, error) {
	js, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	data, err := yaml.JSONToYAML(js)
	if err != nil {
		return "", err
	}
	return strings.TrimRight(string(data), "\n"), nil
}

// blueprintHistoryOptions is `nova blueprint history NAME`.
type blueprintHistoryOptions struct {
	*Env
	Name string
	JSON bool
}

func newBlueprintHistoryCmd(env *Env, runF func(context.Context, *blueprintHistoryOptions) error) *cobra.Command {
	opts := &blueprintHistoryOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "history NAME",
		Short: "List a blueprint's versions, oldest first",
		Args:  exactArgs(1, "a blueprint name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			return pick(runF, runBlueprintHistory)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print a JSON array of versions (with their specs)")
	return cmd
}

func runBlueprintHistory(ctx context.Context, opts *blueprintHistoryOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		vs, err := ws.BlueprintHistory(ctx, opts.Name)
		if err != nil {
			return err
		}
		if opts.JSON {
			if vs == nil {
				vs = []blueprint.VersionRecord{}
			}
			return opts.IO.PrintJSON(vs)
		}
		for _, v := range vs {
			opts.IO.Printf("v%-3d %s  %s  %s\n", v.Version.Version, v.CreatedAt.Local().Format("2006-01-02 15:04"), shortHash(v.Hash), v.Changes)
		}
		return nil
	})
}

func shortHash(h string) string {
	if len(h) > 10 {
		return h[:10]
	}
	return h
}

// blueprintUseOptions is `nova blueprint use NAME`.
type blueprintUseOptions struct {
	*Env
	Name     string
	Sets     []string
	Version  int
	Out      string
	Run      bool
	Autonomy *int
	Yes      bool
	JSON     bool
}

func newBlueprintUseCmd(env *Env, runF func(context.Context, *blueprintUseOptions) error) *cobra.Command {
	opts := &blueprintUseOptions{Env: env}
	var autonomy int
	cmd := &cobra.Command{
		Use:   "use NAME",
		Short: "Render a blueprint to a PRD (stdout, --out FILE) and build it with --run",
		Long: "Renders the blueprint with --set values (a required parameter you did not pass is asked for on\n" +
			"a terminal; off a terminal the command exits 2 naming it). Without --out and --run the PRD is\n" +
			"printed as JSON. --out over an existing file asks first (--yes overwrites). --run creates the\n" +
			"build and runs it like `nova build run` (--json: one event per line); it counts toward the\n" +
			"blueprint's usage and success rate.",
		Args: exactArgs(1, "a blueprint name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Autonomy = nil
			if cmd.Flags().Changed("autonomy") {
				if autonomy < 0 || autonomy > 5 {
					return usagef("--autonomy must be between 0 and 5, got %d", autonomy)
				}
				opts.Autonomy = &autonomy
			}
			if opts.Version < 0 {
				return usagef("--version must be a version number (see `nova blueprint history %s`)", args[0])
			}
			opts.Name = args[0]
			return pick(runF, runBlueprintUse)(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringArrayVar(&opts.Sets, "set", nil, "a parameter as name=value (repeatable)")
	cmd.Flags().IntVar(&opts.Version, "version", 0, "render this version (default: the current one)")
	cmd.Flags().StringVar(&opts.Out, "out", "", "write the rendered PRD to this file")
	cmd.Flags().BoolVar(&opts.Run, "run", false, "build the rendered PRD now")
	cmd.Flags().IntVar(&autonomy, "autonomy", 0, "autonomy level 0-5 for the build (default: config)")
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "overwrite --out without asking")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the result as JSON (with --run: one build event per line)")
	return cmd
}

func runBlueprintUse(ctx context.Context, opts *blueprintUseOptions) error {
	sets, err := parseSets(opts.Sets, "--set")
	if err != nil {
		return err
	}
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		decl, err := blueprintParams(ctx, ws, opts.Name, opts.Version)
		if err != nil {
			return err
		}
		if err := opts.fillParams(ctx, decl, sets, "--set", "parameter", !opts.JSON); err != nil {
			return err
		}
		uo := engine.UseOptions{Values: sets, Version: opts.Version, Out: opts.abs(opts.Out), Build: opts.Run,
			Autonomy: opts.Autonomy, Overwrite: opts.Yes}
		res, err := ws.UseBlueprint(ctx, opts.Name, uo)
		if errors.Is(err, engine.ErrExists) {
			q := fmt.Sprintf("%s exists. Overwrite it with the rendered PRD?", opts.Out)
			if cerr := opts.confirm(ctx, false, q, "overwrite "+opts.Out, "overwritten"); cerr != nil {
				return cerr
			}
			uo.Overwrite = true
			res, err = ws.UseBlueprint(ctx, opts.Name, uo)
		}
		if err != nil {
			return libraryErr(err)
		}
		if res.Build != nil {
			if !opts.JSON {
				if res.Path != "" {
					opts.IO.Printf("wrote %s\n", res.Path)
				}
				opts.IO.Printf("build %d created from %s v%d (%d tasks)\n", res.Build.ID, res.Blueprint, res.Version, res.Build.Total)
			}
			return followBuild(ctx, opts.Env, ws, res.Build.ID, opts.JSON)
		}
		switch {
		case opts.JSON:
			return opts.IO.PrintJSON(res)
		case res.Path != "":
			opts.IO.Printf("wrote %s (%s v%d%s)\nbuild it with `nova build run %s`\n", res.Path, res.Blueprint, res.Version,
				valuesText(res.Values), opts.Out)
			return nil
		default:
			var buf bytes.Buffer
			if err := json.Indent(&buf, res.PRD, "", "  "); err != nil {
				return err
			}
			buf.WriteByte('\n')
			_, err := opts.IO.Out.Write(buf.Bytes())
			return err
		}
	})
}

// blueprintParams returns the parameters of a blueprint's version (0: the
// current one): what a terminal asks for.
func blueprintParams(ctx context.Context, ws engine.Workspace, name string, version int) ([]params.Param, error) {
	d, err := ws.ShowBlueprint(ctx, name)
	if err != nil {
		return nil, err
	}
	if version == 0 || version == d.Version {
		return d.Spec.Parameters, nil
	}
	vs, err := ws.BlueprintHistory(ctx, name)
	if err != nil {
		return nil, err
	}
	for _, v := range vs {
		if v.Version.Version == version {
			return v.Spec.Parameters, nil
		}
	}
	return nil, usagef("blueprint %s has no version %d (it has 1 to %d; see `nova blueprint history %s`)", name, version, d.Version, name)
}

func valuesText(m map[string]any) string {
	if len(m) == 0 {
		return ""
	}
	var kv []string
	for _, k := range sortedKeys(m) {
		kv = append(kv, fmt.Sprintf("%s=%v", k, m[k]))
	}
	return ", " + strings.Join(kv, " ")
}
