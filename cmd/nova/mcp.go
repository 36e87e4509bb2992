package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/mcp"
	"github.com/nova-dev/nova/engine/workspace"
)

func newMCPCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "MCP servers: list them, their tools, call a tool",
		Long: "MCP (Model Context Protocol) servers are configured under mcp.servers in .nova/config.yaml:\n" +
			"a program nova starts (command, args, env) or a streamable HTTP endpoint (url, headers).\n" +
			"Their tools reach agents as SERVER.TOOL, only for agents whose `tools:` lists SERVER.TOOL\n" +
			"or SERVER.*; calling one asks for approval below autonomy 4, and what it returns is shown to\n" +
			"the model as untrusted data. A server starts on first use and stops with nova.",
	}
	cmd.AddCommand(newMCPListCmd(env, nil), newMCPToolsCmd(env, nil), newMCPCallCmd(env, nil))
	return cmd
}

// mcpManager reads the workspace config (no database needed) and returns
// a manager of its servers; the caller closes it.
func (e *Env) mcpManager() (*mcp.Manager, error) {
	root, err := e.root()
	if err != nil {
		return nil, err
	}
	ws, err := workspace.Load(root, e.Getenv)
	if err != nil {
		return nil, err
	}
	return mcp.New(engine.MCPServers(ws.Config.MCP), mcp.Options{Dir: root, Getenv: e.Getenv, Version: version}), nil
}

// mcpListOptions is `nova mcp list`.
type mcpListOptions struct {
	*Env
	Resources bool
	JSON      bool
}

type mcpListEntry struct {
	mcp.Status
	Resources []mcp.Resource `json:"resources,omitempty"`
}

func newMCPListCmd(env *Env, runF func(context.Context, *mcpListOptions) error) *cobra.Command {
	opts := &mcpListOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "Start every configured MCP server and show its state and tool count",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return pick(runF, runMCPList)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Resources, "resources", false, "also list each server's resources, resource templates and prompts")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print a JSON array of servers")
	return cmd
}

func runMCPList(ctx context.Context, opts *mcpListOptions) error {
	m, err := opts.mcpManager()
	if err != nil {
		return err
	}
	defer func() { _ = m.Close() }()
	names := m.Names()
	entries := make([]mcpListEntry, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Go(func() {
			st, err := m.Start(ctx, n)
			if err != nil {
				st.Error = err.Error()
			}
			entries[i] = mcpListEntry{Status: st}
			if err == nil && opts.Resources {
				rs, err := m.Resources(ctx, n)
				entries[i].Resources = rs
				if err != nil {
					entries[i].Warnings = append(entries[i].Warnings, err.Error())
				}
			}
		})
	}
	wg.Wait()
	if opts.JSON {
		if entries == nil {
			entries = []mcpListEntry{}
		}
		return opts.IO.PrintJSON(entries)
	}
	if len(entries) == 0 {
		opts.IO.Printf("no MCP servers configured (add mcp.servers to .nova/config.yaml)\n")
		return nil
	}
	opts.IO.Printf("%-16s %-6s %-12s %-5s %s\n", "SERVER", "KIND", "STATE", "TOOLS", "TARGET")
	for _, e := range entries {
		opts.IO.Printf("%-16s %-6s %-12s %-5d %s\n", e.Name, e.Transport, e.State, e.Tools, clipLine(e.Target, 60))
		if e.Error != "" {
			opts.IO.Printf("  error: %s\n", e.Error)
		}
		for _, w := range e.Warnings {
			opts.IO.Printf("  warning: %s\n", w)
		}
		for _, r := range e.Resources {
			line := r.Name
			if r.URI != "" {
				line += " " + r.URI
			}
			opts.IO.Printf("  %-8s %s\n", r.Kind, clipLine(line, 100))
		}
	}
	return nil
}

// mcpToolsOptions is `nova mcp tools [SERVER]`.
type mcpToolsOptions struct {
	*Env
	Server string
	JSON   bool
}

type mcpToolsEntry struct {
	Server   string     `json:"server"`
	Tools    []mcp.Tool `json:"tools"`
	Warnings []string   `json:"warnings,omitempty"`
	Error    string     `json:"error,omitempty"`
}

func newMCPToolsCmd(env *Env, runF func(context.Context, *mcpToolsOptions) error) *cobra.Command {
	opts := &mcpToolsOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "tools [SERVER]",
		Short: "List the tools MCP servers offer, by the names agents call (SERVER.TOOL)",
		Args:  maxArgs(1, "at most a server name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Server = args[0]
			}
			return pick(runF, runMCPTools)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print a JSON array of {server,tools,warnings,error}")
	return cmd
}

func runMCPTools(ctx context.Context, opts *mcpToolsOptions) error {
	m, err := opts.mcpManager()
	if err != nil {
		return err
	}
	defer func() { _ = m.Close() }()
	names := m.Names()
	if opts.Server != "" {
		if !m.Has(opts.Server) {
			return fmt.Errorf("%w %q (configured: %s)", mcp.ErrUnknownServer, opts.Server, strings.Join(names, ", "))
		}
		names = []string{opts.Server}
	}
	entries := make([]mcpToolsEntry, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Go(func() {
			ts, warns, err := m.Tools(ctx, n)
			entries[i] = mcpToolsEntry{Server: n, Tools: ts, Warnings: warns}
			if entries[i].Tools == nil {
				entries[i].Tools = []mcp.Tool{}
			}
			if err != nil {
				entries[i].Error = err.Error()
			}
		})
	}
	wg.Wait()
	if opts.JSON {
		if err := opts.IO.PrintJSON(entries); err != nil {
			return err
		}
	} else {
		if len(entries) == 0 {
			opts.IO.Printf("no MCP servers configured (add mcp.servers to .nova/config.yaml)\n")
		}
		for _, e := range entries {
			if e.Error != "" {
				opts.IO.Printf("%s: error: %s\n", e.Server, e.Error)
				continue
			}
			opts.IO.Printf("%s: %s\n", e.Server, plural(len(e.Tools), "tool", "tools"))
			for _, t := range e.Tools {
				opts.IO.Printf("  %-32s %s\n", t.FullName, clipLine(t.Description, 80))
			}
			for _, w := range e.Warnings {
				opts.IO.Printf("  warning: %s\n", w)
			}
		}
	}
	if opts.Server != "" && entries[0].Error != "" {
		return &reportedError{msg: entries[0].Error}
	}
	return nil
}

// mcpCallOptions is `nova mcp call SERVER TOOL [JSON]`.
type mcpCallOptions struct {
	*Env
	Server, Tool string
	Args         json.RawMessage
	JSON         bool
}

func newMCPCallCmd(env *Env, runF func(context.Context, *mcpCallOptions) error) *cobra.Command {
	opts := &mcpCallOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "call SERVER TOOL [JSON]",
		Short: "Call a tool of an MCP server with JSON arguments and print its result",
		Long: "Call a tool of an MCP server and print what it returns, marked as coming from the server\n" +
			"(nova does not vouch for it). JSON is the arguments object, e.g. '{\"message\":\"hi\"}'.",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 || len(args) > 3 {
				return usagef("expected SERVER TOOL and optionally a JSON object of arguments")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Server, opts.Tool = args[0], args[1]
			opts.Args = nil
			if len(args) == 3 {
				var obj map[string]any
				if err := json.Unmarshal([]byte(args[2]), &obj); err != nil || obj == nil {
					return usagef("arguments must be a JSON object such as '{\"message\":\"hi\"}'")
				}
				opts.Args = json.RawMessage(args[2])
			}
			return pick(runF, runMCPCall)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {server,tool,text,isError,cut}")
	return cmd
}

func runMCPCall(ctx context.Context, opts *mcpCallOptions) error {
	m, err := opts.mcpManager()
	if err != nil {
		return err
	}
	defer func() { _ = m.Close() }()
	tool := opts.Tool
	if s, t, ok := mcp.SplitToolName(tool); ok && s == opts.Server {
		tool = t // `nova mcp call everything everything.echo` works too
	}
	res, err := m.Call(ctx, opts.Server, tool, opts.Args)
	if err != nil {
		return err
	}
	if opts.JSON {
		if err := opts.IO.PrintJSON(res); err != nil {
			return err
		}
	} else {
		opts.IO.Printf("result of %s.%s (from the MCP server %s; nova does not vouch for it):\n", res.Server, res.Tool, res.Server)
		text := res.Text
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		opts.IO.Printf("%s", text)
	}
	if res.IsError {
		return &reportedError{msg: fmt.Sprintf("%s.%s reported an error", res.Server, res.Tool)}
	}
	return nil
}
