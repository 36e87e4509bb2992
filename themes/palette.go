// Package themes holds nova's colour palettes and the one builder that turns
// a palette into every style the TUI uses (Build). No other package contains
// a colour literal: screens ask Styles for what they need.
package themes

import (
	"fmt"
	"image/color"
	"sort"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/nova-dev/nova/internal/lazyre"
)

// Palette is a named set of colour tokens, written as #rrggbb.
type Palette struct {
	Name   string `yaml:"name"`
	Dark   bool   `yaml:"dark"`
	Colors Colors `yaml:"colors"`
}

// Colors are the design tokens every style is built from.
type Colors struct {
	Background string `yaml:"background"`
	Surface    string `yaml:"surface"`
	Overlay    string `yaml:"overlay"`
	Text       string `yaml:"text"`
	Muted      string `yaml:"muted"`
	Subtle     string `yaml:"subtle"`
	Primary    string `yaml:"primary"`
	Secondary  string `yaml:"secondary"`
	Accent     string `yaml:"accent"`
	Success    string `yaml:"success"`
	Warning    string `yaml:"warning"`
	Error      string `yaml:"error"`
	Info       string `yaml:"info"`
	Border     string `yaml:"border"`
	Focus      string `yaml:"focus"`
	Selection  string `yaml:"selection"`
	DiffAdd    string `yaml:"diffAdd"`
	DiffDel    string `yaml:"diffDel"`
}

var hexColor = lazyre.New(`^#[0-9a-fA-F]{6}$`)

// tokens lists the colour fields by YAML name, for validation and merging.
func (c *Colors) tokens() map[string]*string {
	return map[string]*string{
		"background": &c.Background, "surface": &c.Surface, "overlay": &c.Overlay,
		"text": &c.Text, "muted": &c.Muted, "subtle": &c.Subtle,
		"primary": &c.Primary, "secondary": &c.Secondary, "accent": &c.Accent,
		"success": &c.Success, "warning": &c.Warning, "error": &c.Error, "info": &c.Info,
		"border": &c.Border, "focus": &c.Focus, "selection": &c.Selection,
		"diffAdd": &c.DiffAdd, "diffDel": &c.DiffDel,
	}
}

// Validate reports the first token that is not a #rrggbb colour.
func (p Palette) Validate() error {
	if strings.TrimSpace(p.Name) == "" {
		return fmt.Errorf("name: must not be empty")
	}
	toks := p.Colors.tokens()
	names := make([]string, 0, len(toks))
	for n := range toks {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if v := *toks[n]; !hexColor.MatchString(v) {
			return fmt.Errorf("colors.%s: want a colour like #1e1e2e, got %q", n, v)
		}
	}
	return nil
}

// fillFrom copies base's value into every empty token.
func (c *Colors) fillFrom(base Colors) {
	bt := base.tokens()
	for n, v := range c.tokens() {
		if strings.TrimSpace(*v) == "" {
			*v = *bt[n]
		}
	}
}

func col(hex string) color.Color { return lipgloss.Color(hex) }
