// Command nova is a terminal workbench for local-LLM coding agents.
//
// # Commands
//
// One file per command group (vault.go, changes.go, …). A command is an Options struct and a runX(opts) (cli/cli style):
//
//	// vaultArchiveListOptions is `nova vault archive list`.
//	type vaultArchiveListOptions struct {
//	    *Env            // streams, environment, Workspace factory, Prompt
//	    JSON bool
//	}
//
//	func newVaultArchiveListCmd(env *Env, runF func(context.Context, *vaultArchiveListOptions) error) *cobra.Command {
//	    opts := &vaultArchiveListOptions{Env: env}
//	    cmd := &cobra.Command{
//	        Use: "list", Short: "…", Args: exactArgs(0, "no arguments"),
//	        RunE: func(cmd *cobra.Command, args []string) error {
//	            // parse args and validate flags into opts; bad usage: usagef(...) (exit 2)
//	            return pick(runF, runVaultArchiveList)(cmd.Context(), opts)
//	        },
//	    }
//	    cmd.Flags().BoolVar(&opts.JSON, "json", false, "print a JSON array of nodes")
//	    return cmd
//	}
//
//	func runVaultArchiveList(ctx context.Context, opts *vaultArchiveListOptions) error {
//	    return opts.withWorkspace(ctx, true, func(ws engine.Workspace) error {
//	        nodes, err := ws.ListArchived(ctx, vault.ArchiveOptions{})
//	        if err != nil {
//	            return err                      // exit 1, printed as "nova: …"
//	        }
//	        if opts.JSON {
//	            return opts.IO.PrintJSON(nodes) // one document, lowerCamelCase, [] not null
//	        }
//	        opts.IO.Printf("…\n")               // human text: sanitised
//	        return nil
//	    })
//	}
//
// Register it in its group's `newXCmd` (or `rootCmd` in root.go). The rules:
//   - reach the engine only through `opts.Workspace` / `opts.withWorkspace` (the one seam is
//     `openWorkspace` in open.go: `owner.Join` makes the command the client of the nova that owns the
//     workspace, or the owner itself — serving the others on `.nova/nova.sock` while it runs);
//     `TestCLIReachesTheEngineOnlyThroughTheFacade` fails on `storage`, `engine/llm` and the engine's own Local type. Plain
//     engine functions that read files only (`engine.Doctor`, `engine.LoadRoster`, `prd.Load`) and the exclusive
//     operations that need the database to themselves (`engine.Compact`, inside `runExclusive`, i.e.
//     `owner.RunExclusive`: refused, naming the owner, while another nova owns the workspace) are called
//     directly;
//   - resolve path arguments with `opts.abs(path)` before handing them to the engine;
//   - human output only through `opts.IO.Printf` / `Logf` / `Human()` (a tabwriter's target): they strip
//     terminal control sequences from untrusted text (names, titles, node contents, model output, file names).
//     JSON goes through `opts.IO.PrintJSON` (or `jsonArray` to stream a long listing);
//   - every destructive command (forget, unlink, delete, reject, apply, discard, undo, compact, …) has `--yes/-y`
//     and calls `opts.confirm(ctx, opts.Yes, question, verb, pastTense)` before it changes anything: `[y/N]` on a
//     terminal (default no; a no exits 1 with "not … : nothing changed"), and off a terminal exit 2 with a
//     message containing "pass --yes";
//   - errors: return them (exit 1); bad usage `usagef(...)`, `exactArgs`, `maxArgs`, `minArgs`, `parseID`
//     (exit 2); a failure already reported as JSON: `&reportedError{}`. A flag with a set of values is parsed with
//     `enumValue(flag, value, parse, valid)` or refused with `badValue(flag, value, valid)`: exit 2 listing the
//     valid values. A group (a command with subcommands) needs nothing: `guideUsage` makes an unknown subcommand
//     exit 2 with "did you mean", flag errors read as sentences ("--limit must be a number"), and every usage
//     error points to the command's own `--help`. fang capitalises the first word of a flag's description, so
//     start it with a plain word, never a value (`relation: supports, …`, checked by a test);
//   - long work: subscribe first (`ws.Subscribe`), filter by your build id or `Op`, call the blocking verb
//     with the command's ctx (ctrl+c cancels it), print events as they come (see `followBuild`, `runAgentRun`).
//
// Tests: call `runX` directly with an Env from `testWorkspace(t, env)` (cmd/nova/runx_test.go) or run a
// command line in process with `runNova(t, dir, env, args...)`; test flag parsing through `runF`. Both use the
// workspace kind `NOVA_CLI_WORKSPACE` selects (`testWorkspaces` in cli_test.go): "direct" (each command owns
// the workspace) or "owner" (a test owner serves it on the real socket and every command is its client);
// `make test` runs the package once per kind. A test that needs the database file to itself calls
// `stopTestOwner(t, dir)` first, as a user would quit nova. Only tests that need a real
// process (signals, kill -9, cold-process benchmarks) use the binary (`novaBinary`, `binaryCmd`, `runBinary`).
package main
