package themes

// Built-in palette names.
const (
	DefaultName      = "nova-dark"
	LightName        = "nova-light"
	HighContrastName = "high-contrast"
)

// NovaDark is the default: deep indigo surfaces with a violet accent.
var NovaDark = Palette{Name: DefaultName, Dark: true, Colors: Colors{
	Background: "#15131f", Surface: "#1e1b2b", Overlay: "#2a2640",
	Text: "#e6e3f2", Muted: "#a09cb8", Subtle: "#6c6888",
	Primary: "#9d7cff", Secondary: "#5fd4d0", Accent: "#ff9f6b",
	Success: "#6fdc8c", Warning: "#f2c55c", Error: "#ff6b81", Info: "#6bb7ff",
	Border: "#3b3656", Focus: "#9d7cff", Selection: "#322c4d",
	DiffAdd: "#1d3b2c", DiffDel: "#47202b",
}}

// NovaLight is a paper-white palette for light terminals.
var NovaLight = Palette{Name: LightName, Dark: false, Colors: Colors{
	Background: "#fbfaff", Surface: "#f1eff9", Overlay: "#e4e0f2",
	Text: "#23202f", Muted: "#5d5873", Subtle: "#8f8aa6",
	Primary: "#6a45e0", Secondary: "#0f8f8a", Accent: "#c2571f",
	Success: "#1e8a45", Warning: "#8f6400", Error: "#c8243f", Info: "#1f6fc2",
	Border: "#cfc9e3", Focus: "#6a45e0", Selection: "#e2dbfb",
	DiffAdd: "#dcf3e3", DiffDel: "#fadde2",
}}

// HighContrast maximises legibility: pure black, white and saturated hues.
var HighContrast = Palette{Name: HighContrastName, Dark: true, Colors: Colors{
	Background: "#000000", Surface: "#000000", Overlay: "#1a1a1a",
	Text: "#ffffff", Muted: "#e0e0e0", Subtle: "#bdbdbd",
	Primary: "#ffff00", Secondary: "#00ffff", Accent: "#ff8800",
	Success: "#00ff00", Warning: "#ffff00", Error: "#ff3030", Info: "#00bfff",
	Border: "#ffffff", Focus: "#ffff00", Selection: "#0000aa",
	DiffAdd: "#003d00", DiffDel: "#5c0000",
}}

// Builtin returns the shipped palettes in display order.
func Builtin() []Palette { return []Palette{NovaDark, NovaLight, HighContrast} }
