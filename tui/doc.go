// Package tui is nova's Bubble Tea v2 application: the root model routes
// between pages, owns the header, status bar, help and command palette, and
// turns engine events into messages.
//
// # Pages and their Source
//
// Each page declares, next to itself (`source.go` or the top of its main file), the
// narrow `Source` interface it needs: a subset of `engine.Workspace`'s method set, copied verbatim. The page is
// built with `New(c *common.Common, src Source)`; `tui.DefaultPages()` hands every page the workspace. Add the
// new verb to the Source of the pages that use it. The page calls the Source only inside `tea.Cmd`s (no I/O in
// Update or View; `Info()`/`Config()` do none), and its tests pass the real engine
// (`tuitest.Workspace(t, now)`: a temp workspace on a pinned clock) or a small fake of the Source (a struct
// implementing just those methods, e.g. tui/pages/build/helpers_test.go). Nothing recovers from panics: a
// missing capability is a compile error, a failing one an error value the page shows.
//
// # Conventions
//
//   - soft-serve style. `common.Common` (ctx, size, styles, keymap) is shared by pointer. Every component
//     implements `common.Component` (Init/Update/View/SetSize + help.KeyMap); pages implement `common.Page`
//     (+Title, Capturing). Register a page in `tui.DefaultPages()` (app.go) with its Source.
//   - The root handles global keys (q, ?, ctrl+p, alt+1…alt+9 and alt+0 — the tab labels show them, `KeyMap.GoTo` —,
//     [ ]), forwards keys to the active page and broadcasts every other message to all pages (ignore what isn't
//     yours). Navigation: a cmd producing `common.NavigateMsg{Page: id, Arg: x}`; `common.ArgNew` opens a page's
//     "new" dialog and `common.ArgPending` the first item waiting for the user (the palette's actions use them).
//   - Big pages are composed like soft-serve's repo page: the Vault page holds panes (browse = list + detail,
//     graph, conflicts, archive) and dialogs (link picker, tags, confirm), each owning its state, messages and
//     view; the Playbooks page an agent list, rules/history/pending panes and a rule form. The page routes keys
//     and runs actions. Shared components: `helpview` (the `?` overlay: every binding, laid out to the width,
//     scrolling), `pathinput` (a path with completion and `~`, validated as you type; look-ups in Cmds),
//     `markdown` (the one glamour renderer), `confirm`, `vlist`, `graphview`, `diffview`, `runview`, `palette`.
//   - Responsive input: a dialog keeps the view under it (`common.ViewCache`) while it has the keys; the root
//     keeps its frame through messages that change nothing and the page's view under the palette/help; a burst
//     of keystrokes runs one timer (`common.Debouncer`), not one per key. `BenchmarkTyping180x50` (tui) measures
//     every text input at 180×50 over a 100k vault.
//   - Keys: the ONE keymap `tui/keymap/keymap.go`. Styles: `c.Styles` (themes.Build); no colour literals outside
//     themes/. Confirmation before anything destructive; `?` help from FullHelp(); empty states everywhere
//     (`c.Empty(title, hint)`); layouts fit 80×24 … 250×70.
//   - Tests drive models through the one runtime `tuitest.Driver` (`DriveModel` for the root, `DriveComponent` for
//     a page): commands run in goroutines, `Press`/`Type`/`Send` drain until every command is done except timers,
//     event waits and cursor blinks; `Until(cond)` and `Settle(d)` for long work; toasts, errors and navigation are
//     recorded. `tui/program_test.go` runs the real `tea.Program` through teatest.
//   - Golden tests: render `View()` through `tuitest.Pinned` and compare with `golden.RequireEqual`; update with
//     `go test ./tui/... -update` (only for an intended change). `tui/screens_test.go` has every screen and
//     overlay at 80×24 and checks 120×40 and 180×50 (fits, shows the active screen and the footer hint, closes
//     its boxes).
package tui
