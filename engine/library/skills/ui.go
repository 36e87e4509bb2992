package skills

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/internal/lazyre"
)

// UIToolName is VENUS's component-spec tool.
const UIToolName = "generateUIComponent"

// UIAgent is the only agent that may call it.
const UIAgent = "VENUS"

// UIOutputCap is the tool's declared output cap (the whole spec is shown).
const UIOutputCap = 2600

// MaxComponentLines is the size limit the spec sets for one component file.
const MaxComponentLines = 200

// ShadcnPrimitives are the shadcn/ui components nova knows. Sub-parts
// (CardHeader, TableRow, DialogTrigger…) are recognised by their prefix.
var ShadcnPrimitives = []string{
	"Accordion", "Alert", "AlertDialog", "AspectRatio", "Avatar", "Badge", "Breadcrumb", "Button",
	"Calendar", "Card", "Carousel", "Chart", "Checkbox", "Collapsible", "Command", "ContextMenu",
	"Dialog", "Drawer", "DropdownMenu", "Form", "HoverCard", "Input", "InputOTP", "Label", "Menubar",
	"NavigationMenu", "Pagination", "Popover", "Progress", "RadioGroup", "Resizable", "ScrollArea",
	"Select", "Separator", "Sheet", "Sidebar", "Skeleton", "Slider", "Sonner", "Switch", "Table", "Tabs",
	"Textarea", "Toast", "Toggle", "ToggleGroup", "Tooltip",
}

// UIRequest is generateUIComponent's arguments.
type UIRequest struct {
	ComponentName    string   `json:"componentName"`
	Purpose          string   `json:"purpose"`
	Props            []string `json:"props,omitempty"`
	ShadcnComponents []string `json:"shadcnComponents,omitempty"`
	HasInteractivity bool     `json:"hasInteractivity,omitempty"`
}

var pascal = lazyre.New(`^[A-Z][A-Za-z0-9]{0,63}$`)

// ErrBadComponent: the request cannot make a spec.
var ErrBadComponent = errors.New("bad component request")

// ComponentSpec builds the component specification VENUS implements from.
// It is deterministic: the same request gives the same text.
func ComponentSpec(req UIRequest) (string, error) {
	name := strings.TrimSpace(req.ComponentName)
	purpose := strings.Join(strings.Fields(req.Purpose), " ")
	switch {
	case !pascal.MatchString(name):
		return "", fmt.Errorf("%w: componentName %q must be PascalCase, e.g. UserCard", ErrBadComponent, req.ComponentName)
	case purpose == "":
		return "", fmt.Errorf("%w: purpose is required: say what the component shows and does", ErrBadComponent)
	case len(purpose) > 600:
		purpose = purpose[:600] + "…"
	}
	props := dedupe(req.Props)
	var known, unknown []string
	for _, c := range dedupe(req.ShadcnComponents) {
		if base := shadcnBase(c); base != "" {
			known = append(known, c)
		} else {
			unknown = append(unknown, c)
		}
	}

	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	line("Component spec: %s", name)
	line("Purpose: %s", purpose)
	if len(props) > 0 {
		line("Props: %s (type each one; optional props get defaults)", strings.Join(props, ", "))
	} else {
		line("Props: none given; derive a small typed set from the purpose")
	}
	if len(known) > 0 {
		var imports []string
		seen := map[string]bool{}
		for _, c := range known {
			p := "@/components/ui/" + kebab(shadcnBase(c))
			if !seen[p] {
				seen[p] = true
				imports = append(imports, p)
			}
		}
		line("shadcn/ui: %s (import from %s)", strings.Join(known, ", "), strings.Join(imports, ", "))
	} else {
		line("shadcn/ui: none named; use the project's primitives (Button, Card, Skeleton, Alert…) before writing your own")
	}
	if len(unknown) > 0 {
		line("Not shadcn/ui primitives nova knows: %s (check components/ui before using them)", strings.Join(unknown, ", "))
	}
	if req.HasInteractivity {
		line("Interactive: yes (handlers, keyboard support and disabled handling are required)")
	} else {
		line("Interactive: no (presentational; keep handlers out)")
	}
	line("")
	line("Render all five states:")
	line("1. loading: Skeleton blocks shaped like the content (not a spinner); container aria-busy=\"true\"")
	line("2. empty: say what is missing and offer the next action as a Button")
	line("3. error: the message in role=\"alert\" with a retry action; never a blank area")
	line("4. success: the content itself")
	line("5. disabled: muted (opacity-50, cursor-not-allowed); controls get disabled or aria-disabled=\"true\"")
	line("")
	line("Accessibility:")
	line("- semantic elements first: button, a, input, label, ul; never a div with onClick")
	line("- every input has a label (visible or sr-only) tied by htmlFor/id; aria-describedby points at help or error text")
	line("- icon-only buttons: aria-label on the button, aria-hidden=\"true\" on the icon; images: alt text, alt=\"\" when decorative")
	line("- colour is never the only signal: pair it with text or an icon")
	if req.HasInteractivity {
		line("Keyboard:")
		line("- every control reachable with Tab in reading order, with a visible focus ring (focus-visible:ring-2 ring-ring)")
		line("- Enter and Space activate; Escape closes overlays; arrow keys move inside lists and menus")
		line("- focus returns to the trigger when a dialog or menu closes")
	}
	line("Layout, mobile-first: base classes for < 640px, then sm: 640px, md: 768px, lg: 1024px;")
	line("stack on mobile and grid from md: (flex flex-col md:grid md:grid-cols-2); touch targets at least 44px.")
	line("Design tokens: theme CSS variables through Tailwind (bg-background, text-foreground, bg-primary,")
	line("text-primary-foreground, text-muted-foreground, border-border, ring-ring, bg-destructive); no raw colours.")
	line("Size: at most %d lines per file; move sub-components into their own exports past that.", MaxComponentLines)
	return strings.TrimRight(b.String(), "\n"), nil
}

// UITool returns generateUIComponent, reserved for VENUS: the registry
// refuses every other agent with "generateUIComponent is reserved for
// VENUS". It does not write anything: VENUS writes the component.
func UITool() tools.Tool {
	return tools.Tool{
		Name: UIToolName,
		Description: "Get the specification a UI component must meet before you write it: the five states, accessibility " +
			"and keyboard rules, mobile-first breakpoints, design tokens and the size limit, for this component's name, " +
			"purpose, props and shadcn/ui parts. Call it first for any component over 50 lines.",
		Schema: json.RawMessage(`{"type":"object","properties":{
			"componentName":{"type":"string","minLength":1,"description":"PascalCase name, e.g. UserCard"},
			"purpose":{"type":"string","minLength":1,"description":"what the component shows and does"},
			"props":{"type":"array","items":{"type":"string"},"description":"prop names it needs"},
			"shadcnComponents":{"type":"array","items":{"type":"string"},"description":"shadcn/ui parts to use, e.g. [\"Card\",\"Badge\"]"},
			"hasInteractivity":{"type":"boolean","description":"true when it handles clicks, input or submission"}},
			"required":["componentName","purpose"],"additionalProperties":false}`),
		Timeout:       5 * time.Second,
		AllowedAgents: []string{UIAgent},
		AllAgents:     true, // VENUS has it without listing it; nobody else may call it
		OutputCap:     UIOutputCap,
		Run: func(_ context.Context, _ *tools.Env, raw json.RawMessage) (tools.Output, error) {
			var req UIRequest
			if err := json.Unmarshal(raw, &req); err != nil {
				return tools.Output{}, fmt.Errorf("%w: %w", tools.ErrInvalidArgs, err)
			}
			spec, err := ComponentSpec(req)
			if err != nil {
				return tools.Output{}, fmt.Errorf("%w: %w", tools.ErrInvalidArgs, err)
			}
			return tools.Output{Text: spec}, nil
		},
	}
}

func shadcnBase(c string) string {
	best := ""
	for _, p := range ShadcnPrimitives {
		if strings.HasPrefix(c, p) && len(p) > len(best) {
			best = p
		}
	}
	return best
}

func kebab(s string) string {
	var b strings.Builder
	prevLower := false
	for _, r := range s {
		if unicode.IsUpper(r) && prevLower {
			b.WriteByte('-')
		}
		prevLower = unicode.IsLower(r)
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

func dedupe(in []string) []string {
	var out []string
	for _, s := range in {
		s = strings.TrimSpace(s)
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
