package chat

import (
	"fmt"
	"slices"
	"strings"
)

// CommandInfo is one `/` command, for completion and help.
type CommandInfo struct {
	Name string `json:"name"`
	Args string `json:"args,omitempty"`
	Help string `json:"help"`
}

// Commands lists the `/` commands.
var Commands = []CommandInfo{
	{Name: "agent", Args: "[ID|auto]", Help: "choose the agent of this session (auto: the router picks)"},
	{Name: "help", Help: "the commands and keys"},
	{Name: "new", Help: "start a new session"},
	{Name: "plan", Help: "turn the conversation into a PRD in .nova/prds/"},
	{Name: "rehearse", Help: "turn the last request into 2–3 alternatives (the Rehearsal screen)"},
	{Name: "retry", Help: "run the last request again"},
	{Name: "sessions", Help: "list the sessions"},
	{Name: "tier", Args: "[small|medium|large|auto]", Help: "choose the model tier of this session"},
	{Name: "undo", Help: "revert the last change applied in this session"},
}

// Command is a parsed `/` command.
type Command struct {
	Name string
	Arg  string
}

// ParseCommand reads a `/` command; ok is false when msg is not one (it
// does not start with "/", or starts with "//" or a path such as "/tmp/x").
// An unknown command is an error naming the known ones.
func ParseCommand(msg string) (Command, bool, error) {
	s := strings.TrimSpace(msg)
	if !strings.HasPrefix(s, "/") || strings.HasPrefix(s, "//") {
		return Command{}, false, nil
	}
	name, arg, _ := strings.Cut(s[1:], " ")
	if name == "" || strings.Contains(name, "/") {
		return Command{}, false, nil
	}
	name = strings.ToLower(name)
	if !slices.ContainsFunc(Commands, func(c CommandInfo) bool { return c.Name == name }) {
		return Command{}, true, fmt.Errorf("unknown command /%s (try /help): %s", name, CommandNames())
	}
	return Command{Name: name, Arg: strings.TrimSpace(arg)}, true, nil
}

// CommandNames lists the commands as "/agent, /help, …".
func CommandNames() string {
	names := make([]string, len(Commands))
	for i, c := range Commands {
		names[i] = "/" + c.Name
	}
	return strings.Join(names, ", ")
}

// CompleteCommand lists the commands whose name starts with prefix (without
// its "/").
func CompleteCommand(prefix string) []CommandInfo {
	var out []CommandInfo
	for _, c := range Commands {
		if strings.HasPrefix(c.Name, strings.ToLower(prefix)) {
			out = append(out, c)
		}
	}
	return out
}

// HelpText is /help's answer.
func HelpText() string {
	var b strings.Builder
	b.WriteString("Type a request and press enter: the router gives a change to an agent that writes files and a\n" +
		"question to a read-only one; start with @AGENT to choose. @path attaches a file.\n\nCommands:\n")
	for _, c := range Commands {
		fmt.Fprintf(&b, "  /%-9s %-26s %s\n", c.Name, c.Args, c.Help)
	}
	return strings.TrimRight(b.String(), "\n")
}
