package themes

import (
	"image/color"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textinput"
	"charm.land/lipgloss/v2"
	"github.com/alecthomas/chroma/v2"
)

// Tokens are a palette's colours resolved for lipgloss.
type Tokens struct {
	Background, Surface, Overlay                          color.Color
	Text, Muted, Subtle                                   color.Color
	Primary, Secondary, Accent                            color.Color
	Success, Warning, Error, Info                         color.Color
	Border, Focus, Selection, DiffAdd, DiffDel, OnPrimary color.Color
}

// Styles is every style the TUI uses, built from one palette by Build.
type Styles struct {
	Name string
	Dark bool
	T    Tokens

	App, Header, Logo, Tab, TabActive, TabSep         lipgloss.Style
	StatusBar, StatusKey, StatusValue, StatusSep      lipgloss.Style
	StatusOK, StatusWarn, StatusErr                   lipgloss.Style
	Title, Subtitle, Text, Muted, Subtle, Bold        lipgloss.Style
	Primary, Secondary, Accent                        lipgloss.Style
	Success, Warning, Error, Info                     lipgloss.Style
	Panel, PanelFocused, PanelTitle, PanelTitleActive lipgloss.Style
	Selected, Cursor, Row                             lipgloss.Style
	Badge, BadgeOK, BadgeWarn, BadgeErr, BadgeInfo    lipgloss.Style
	BadgeMuted, BadgeAccent                           lipgloss.Style
	BarFull, BarEmpty                                 lipgloss.Style
	Dialog, DialogTitle, Button, ButtonActive         lipgloss.Style
	Key, KeyDesc, Link                                lipgloss.Style
	DiffAdd, DiffDel, DiffCtx, DiffHunk               lipgloss.Style
	DiffLineNo, DiffAddSign, DiffDelSign, DiffEmpty   lipgloss.Style
	EdgeLabel, EdgeConflict, Tree                     lipgloss.Style
	Help                                              help.Styles
	TextInput                                         textinput.Styles
	Chroma                                            *chroma.Style

	// DiffAddWord and DiffDelWord mark the changed words inside a changed
	// line (intra-line highlighting): a stronger tint of DiffAdd/DiffDel.
	DiffAddWord, DiffDelWord lipgloss.Style
}

// Build turns a palette into Styles. It is the only place styles are made.
func Build(p Palette) *Styles {
	c := p.Colors
	t := Tokens{
		Background: col(c.Background), Surface: col(c.Surface), Overlay: col(c.Overlay),
		Text: col(c.Text), Muted: col(c.Muted), Subtle: col(c.Subtle),
		Primary: col(c.Primary), Secondary: col(c.Secondary), Accent: col(c.Accent),
		Success: col(c.Success), Warning: col(c.Warning), Error: col(c.Error), Info: col(c.Info),
		Border: col(c.Border), Focus: col(c.Focus), Selection: col(c.Selection),
		DiffAdd: col(c.DiffAdd), DiffDel: col(c.DiffDel), OnPrimary: col(c.Background),
	}
	fg := func(cc color.Color) lipgloss.Style { return lipgloss.NewStyle().Foreground(cc) }
	badge := func(cc color.Color) lipgloss.Style {
		return lipgloss.NewStyle().Foreground(t.OnPrimary).Background(cc).Padding(0, 1).Bold(true)
	}
	s := &Styles{Name: p.Name, Dark: p.Dark, T: t}

	s.App = lipgloss.NewStyle().Foreground(t.Text)
	s.Header = lipgloss.NewStyle().Foreground(t.Text).BorderStyle(lipgloss.NormalBorder()).
		BorderBottom(true).BorderForeground(t.Border)
	s.Logo = lipgloss.NewStyle().Foreground(t.OnPrimary).Background(t.Primary).Bold(true).Padding(0, 1)
	s.Tab = fg(t.Muted).Padding(0, 1)
	s.TabActive = fg(t.Primary).Bold(true).Underline(true).Padding(0, 1)
	s.TabSep = fg(t.Subtle)

	s.StatusBar = lipgloss.NewStyle().Foreground(t.Muted).Background(t.Surface)
	s.StatusKey = lipgloss.NewStyle().Foreground(t.OnPrimary).Background(t.Secondary).Padding(0, 1).Bold(true)
	s.StatusValue = lipgloss.NewStyle().Foreground(t.Text).Background(t.Surface).Padding(0, 1)
	s.StatusSep = lipgloss.NewStyle().Foreground(t.Subtle).Background(t.Surface)
	s.StatusOK = lipgloss.NewStyle().Foreground(t.Success).Background(t.Surface).Padding(0, 1)
	s.StatusWarn = lipgloss.NewStyle().Foreground(t.Warning).Background(t.Surface).Padding(0, 1)
	s.StatusErr = lipgloss.NewStyle().Foreground(t.Error).Background(t.Surface).Padding(0, 1)

	s.Title = fg(t.Primary).Bold(true)
	s.Subtitle = fg(t.Secondary).Bold(true)
	s.Text = fg(t.Text)
	s.Muted = fg(t.Muted)
	s.Subtle = fg(t.Subtle)
	s.Bold = fg(t.Text).Bold(true)
	s.Primary, s.Secondary, s.Accent = fg(t.Primary), fg(t.Secondary), fg(t.Accent)
	s.Success, s.Warning, s.Error, s.Info = fg(t.Success), fg(t.Warning), fg(t.Error), fg(t.Info)

	s.Panel = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(t.Border).Padding(0, 1)
	s.PanelFocused = s.Panel.BorderForeground(t.Focus)
	s.PanelTitle = fg(t.Muted).Bold(true)
	s.PanelTitleActive = fg(t.Focus).Bold(true)
	s.Selected = lipgloss.NewStyle().Foreground(t.Text).Background(t.Selection).Bold(true)
	s.Cursor = fg(t.Primary).Bold(true)
	s.Row = fg(t.Text)

	s.Badge = badge(t.Primary)
	s.BadgeOK, s.BadgeWarn, s.BadgeErr = badge(t.Success), badge(t.Warning), badge(t.Error)
	s.BadgeInfo, s.BadgeMuted, s.BadgeAccent = badge(t.Info), badge(t.Subtle), badge(t.Accent)
	s.BarFull = fg(t.Primary)
	s.BarEmpty = fg(t.Border)

	s.Dialog = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(t.Focus).
		Background(t.Overlay).Foreground(t.Text).Padding(1, 2)
	s.DialogTitle = fg(t.Primary).Background(t.Overlay).Bold(true)
	s.Button = lipgloss.NewStyle().Foreground(t.Text).Background(t.Border).Padding(0, 2)
	s.ButtonActive = lipgloss.NewStyle().Foreground(t.OnPrimary).Background(t.Primary).Padding(0, 2).Bold(true)
	s.Key = fg(t.Secondary).Bold(true)
	s.KeyDesc = fg(t.Muted)
	s.Link = fg(t.Info).Underline(true)

	s.DiffAdd = lipgloss.NewStyle().Background(t.DiffAdd)
	s.DiffDel = lipgloss.NewStyle().Background(t.DiffDel)
	s.DiffCtx = lipgloss.NewStyle()
	s.DiffHunk = fg(t.Info).Bold(true)
	s.DiffLineNo = fg(t.Subtle)
	s.DiffAddSign = fg(t.Success).Background(t.DiffAdd).Bold(true)
	s.DiffDelSign = fg(t.Error).Background(t.DiffDel).Bold(true)
	s.DiffEmpty = fg(t.Subtle)
	s.DiffAddWord = lipgloss.NewStyle().Background(tint(t.DiffAdd, t.Success))
	s.DiffDelWord = lipgloss.NewStyle().Background(tint(t.DiffDel, t.Error))

	s.EdgeLabel = fg(t.Secondary).Italic(true)
	s.EdgeConflict = fg(t.Error).Bold(true)
	s.Tree = fg(t.Subtle)

	s.Help = help.Styles{
		Ellipsis:       fg(t.Subtle),
		ShortKey:       fg(t.Secondary),
		ShortDesc:      fg(t.Muted),
		ShortSeparator: fg(t.Subtle),
		FullKey:        fg(t.Secondary).Bold(true),
		FullDesc:       fg(t.Text),
		FullSeparator:  fg(t.Subtle),
	}
	ti := textinput.DefaultStyles(p.Dark)
	ti.Focused.Prompt = fg(t.Primary)
	ti.Focused.Text = fg(t.Text)
	ti.Focused.Placeholder = fg(t.Subtle)
	ti.Blurred.Prompt = fg(t.Muted)
	ti.Blurred.Text = fg(t.Muted)
	ti.Blurred.Placeholder = fg(t.Subtle)
	s.TextInput = ti
	s.Chroma = chromaStyle(p)
	return s
}

// tint moves base a third of the way towards toward (CIELAB blend).
func tint(base, toward color.Color) color.Color {
	if c := lipgloss.Blend1D(4, base, toward); len(c) == 4 {
		return c[1]
	}
	return base
}

// chromaStyle maps the palette onto syntax-highlighting token classes.
func chromaStyle(p Palette) *chroma.Style {
	c := p.Colors
	st, err := chroma.NewStyle("nova-"+p.Name, chroma.StyleEntries{
		chroma.Text:               c.Text,
		chroma.Keyword:            "bold " + c.Primary,
		chroma.KeywordType:        c.Secondary,
		chroma.NameFunction:       c.Info,
		chroma.NameBuiltin:        c.Secondary,
		chroma.NameClass:          "bold " + c.Secondary,
		chroma.LiteralString:      c.Success,
		chroma.LiteralNumber:      c.Accent,
		chroma.Comment:            "italic " + c.Subtle,
		chroma.Operator:           c.Muted,
		chroma.Punctuation:        c.Muted,
		chroma.GenericInserted:    c.Success,
		chroma.GenericDeleted:     c.Error,
		chroma.NameTag:            c.Primary,
		chroma.NameAttribute:      c.Warning,
		chroma.LiteralStringDoc:   "italic " + c.Subtle,
		chroma.KeywordNamespace:   c.Primary,
		chroma.KeywordConstant:    c.Accent,
		chroma.KeywordDeclaration: "bold " + c.Primary,
	})
	if err != nil {
		return chroma.MustNewStyle("nova-fallback", chroma.StyleEntries{chroma.Text: c.Text})
	}
	return st
}

// Bar renders a horizontal bar filled to fraction (0..1) over width cells.
func (s *Styles) Bar(fraction float64, width int) string {
	if width <= 0 {
		return ""
	}
	if fraction < 0 {
		fraction = 0
	}
	if fraction > 1 {
		fraction = 1
	}
	full := int(fraction*float64(width) + 0.5)
	return s.BarFull.Render(strings.Repeat("█", full)) + s.BarEmpty.Render(strings.Repeat("░", width-full))
}

// Band returns the badge style for a quality band or status word.
func (s *Styles) Band(word string) lipgloss.Style {
	switch strings.ToLower(word) {
	case "high", "ok", "pass", "passed", "done", "online", "approved", "applied":
		return s.BadgeOK
	case "medium", "warn", "pending", "waiting", "running", "inconclusive", "unverified", "done (unverified)":
		return s.BadgeWarn
	case "low", "fail", "failed", "error", "blocked", "offline", "rejected":
		return s.BadgeErr
	}
	return s.BadgeMuted
}
