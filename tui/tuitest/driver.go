package tuitest

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/tui/common"
)

// Driver is the one Bubble Tea runtime of nova's TUI tests: it feeds
// messages to a model's Update, runs the commands Update returns in
// goroutines (as a tea.Program does) and feeds their messages back, in the
// order they arrive. Every page's and component's tests drive their model
// through it, so there is one drive loop to get right.
//
// A test either waits for a state (Until), lets things run for a while
// (Settle), or drains (Drain, and Send/Press/Type, which drain after each
// message). A drain handles messages until every command has finished
// except the background ones, which may never end or re-arm themselves:
// timers made with tea.Tick or tea.Every (the root's toast and Ollama
// ticks, spinners), waits for engine events (common.WaitEvent) and cursor
// blinks. Their messages are handled by whichever drain or wait is running
// when they arrive. Debounces (common.Debounce) are not background: a drain
// waits for them, so a search typed then drained has run. A drain never
// lasts longer than MaxDrain; a command still running then (an agent run
// waiting for an answer) goes on in the background — drive such work with
// Dispatch and Until.
//
// The driver records what pages send the root: toasts, errors, navigation
// requests and quit. It drops a text input's cursor blinks (they loop).
// Driver is not safe for concurrent use: call it from the test goroutine.
type Driver struct {
	t      testing.TB
	update func(tea.Msg) tea.Cmd
	view   func() string

	msgs    chan result
	running map[int]string // id -> the command's function, "" = background
	next    int
	events  <-chan engine.Event

	// MaxDrain bounds one drain (default 15 s).
	MaxDrain time.Duration
	// Timeout bounds Until (default 30 s); reaching it fails the test.
	Timeout time.Duration

	// Toasts, Errs and Navs are what the model asked the root to show or
	// do, in order; Quit is set once it asked to quit.
	Toasts []string
	Errs   []error
	Navs   []common.NavigateMsg
	Quit   bool
	// Said is what the status bar would have said, in order: every toast,
	// and every error as "error: …".
	Said []string
	// Forward decides which of the recorded messages (toasts, errors,
	// navigation) also reach the model; the default forwards all of them,
	// as the root broadcasts them.
	Forward func(tea.Msg) bool
}

type result struct {
	id  int
	msg tea.Msg
}

// NewDriver drives a model given as its update and view functions.
func NewDriver(t testing.TB, update func(tea.Msg) tea.Cmd, view func() string) *Driver {
	return &Driver{
		t: t, update: update, view: view,
		msgs: make(chan result, 4096), running: map[int]string{},
		MaxDrain: 15 * time.Second, Timeout: 30 * time.Second,
	}
}

// ModelDriver drives a tea.Model (the root model): Model returns its current
// value.
type ModelDriver struct {
	*Driver
	m tea.Model
}

// Model returns the driven model as it is now.
func (d *ModelDriver) Model() tea.Model { return d.m }

// DriveModel drives a tea.Model. Its view is View().Content.
func DriveModel(t testing.TB, m tea.Model) *ModelDriver {
	md := &ModelDriver{m: m}
	md.Driver = NewDriver(t, func(msg tea.Msg) tea.Cmd {
		var cmd tea.Cmd
		md.m, cmd = md.m.Update(msg)
		return cmd
	}, func() string { return md.m.View().Content })
	return md
}

// Component is what DriveComponent drives: a page or a component (its
// Update returns itself as a common.Component).
type Component interface {
	Update(tea.Msg) (common.Component, tea.Cmd)
	View() string
}

// DriveComponent drives a page or a component in place.
func DriveComponent(t testing.TB, c Component) *Driver {
	return NewDriver(t, func(msg tea.Msg) tea.Cmd {
		_, cmd := c.Update(msg)
		return cmd
	}, c.View)
}

// PumpEvents makes the driver wait for engine events on ch and hand them to
// the model as common.EventMsg, re-arming after each, as the root model
// does for its pages.
func (d *Driver) PumpEvents(ch <-chan engine.Event) *Driver {
	d.events = ch
	d.Exec(common.WaitEvent(ch))
	return d
}

// Exec runs cmd in the background; its message is handled by the next
// drain or wait.
func (d *Driver) Exec(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	d.next++
	id := d.next
	if name := funcName(cmd); !background(name) {
		d.running[id] = name
	}
	go func() { d.msgs <- result{id: id, msg: cmd()} }()
}

// funcName names the function behind cmd as "file:line" of its body, which
// (unlike the symbol name) does not change when the constructor is inlined.
func funcName(cmd tea.Cmd) string {
	pc := reflect.ValueOf(cmd).Pointer()
	f := runtime.FuncForPC(pc)
	if f == nil {
		return "?"
	}
	file, line := f.FileLine(f.Entry())
	return fmt.Sprintf("%s:%d", file, line)
}

// backgroundFuncs are the commands a drain does not wait for: timers,
// event waits, cursor blinks.
var backgroundFuncs = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		funcName(tea.Tick(time.Hour, func(time.Time) tea.Msg { return nil })):  true,
		funcName(tea.Every(time.Hour, func(time.Time) tea.Msg { return nil })): true,
		funcName(common.WaitEvent(make(chan engine.Event))):                    true,
		funcName(common.Await(func() tea.Msg { return nil })):                  true,
	}
})

func background(name string) bool {
	if backgroundFuncs()[name] {
		return true
	}
	return strings.Contains(name, "/bubbles/v2/cursor/") // blinks
}

// Run executes cmd (e.g. the model's Init) and drains.
func (d *Driver) Run(cmd tea.Cmd) {
	d.t.Helper()
	d.Exec(cmd)
	d.Drain()
}

// Dispatch hands msg to the model (or runs a batch) without draining.
func (d *Driver) Dispatch(msg tea.Msg) {
	switch msg := msg.(type) {
	case nil:
		return
	case tea.BatchMsg:
		for _, c := range msg {
			d.Exec(c)
		}
		return
	case tea.QuitMsg:
		d.Quit = true
		return
	case common.ToastMsg:
		d.Toasts = append(d.Toasts, msg.Text)
		d.Said = append(d.Said, msg.Text)
		if !d.forward(msg) {
			return
		}
	case common.ErrMsg:
		d.Errs = append(d.Errs, msg.Err)
		d.Said = append(d.Said, "error: "+msg.Err.Error())
		if !d.forward(msg) {
			return
		}
	case common.NavigateMsg:
		d.Navs = append(d.Navs, msg)
		if !d.forward(msg) {
			return
		}
	case common.EventMsg:
		d.Exec(d.update(msg))
		if d.events != nil {
			d.Exec(common.WaitEvent(d.events))
		}
		return
	}
	if cmds, ok := sequence(msg); ok {
		// tea.Sequence: run the commands one after the other.
		d.Exec(func() tea.Msg {
			var out tea.BatchMsg
			for _, c := range cmds {
				if c == nil {
					continue
				}
				m := c()
				out = append(out, func() tea.Msg { return m })
			}
			return out
		})
		return
	}
	if isBlink(msg) {
		return
	}
	d.Exec(d.update(msg))
}

func (d *Driver) forward(msg tea.Msg) bool { return d.Forward == nil || d.Forward(msg) }

// sequence recognises tea.Sequence's message (an unexported slice of
// commands).
func sequence(msg tea.Msg) ([]tea.Cmd, bool) {
	v := reflect.ValueOf(msg)
	if v.Kind() != reflect.Slice || v.Type().Elem() != reflect.TypeFor[tea.Cmd]() {
		return nil, false
	}
	cmds := make([]tea.Cmd, v.Len())
	for i := range cmds {
		cmds[i], _ = v.Index(i).Interface().(tea.Cmd)
	}
	return cmds, true
}

// isBlink reports a text input's cursor blink, which would loop forever.
func isBlink(msg tea.Msg) bool {
	t := strings.TrimPrefix(fmt.Sprintf("%T", msg), "*")
	return t == "cursor.BlinkMsg" || t == "cursor.initialBlinkMsg" || t == "cursor.blinkCanceled"
}

func (d *Driver) handle(r result) {
	delete(d.running, r.id)
	d.Dispatch(r.msg)
}

// Drain handles messages until no command is running except background
// ones (see Driver), or MaxDrain has passed.
func (d *Driver) Drain() {
	limit := time.After(d.MaxDrain)
	for len(d.running) > 0 {
		select {
		case r := <-d.msgs:
			d.handle(r)
		case <-limit:
			return
		}
	}
	// Handle what background commands have already delivered.
	for {
		select {
		case r := <-d.msgs:
			d.handle(r)
			if len(d.running) > 0 {
				d.Drain()
				return
			}
		default:
			return
		}
	}
}

// Running lists the functions of the commands a drain would wait for.
func (d *Driver) Running() []string {
	out := make([]string, 0, len(d.running))
	for _, name := range d.running {
		out = append(out, name)
	}
	return out
}

// Send hands msg to the model and drains.
func (d *Driver) Send(msg tea.Msg) {
	d.t.Helper()
	d.Dispatch(msg)
	d.Drain()
}

// Press sends key presses by name (see Key), draining after each.
func (d *Driver) Press(keys ...string) {
	d.t.Helper()
	for _, k := range keys {
		d.Send(Key(k))
	}
}

// Type sends each rune of text as a key press without running the commands
// in between, as a fast typist would, then drains.
func (d *Driver) Type(text string) {
	d.t.Helper()
	for _, r := range text {
		if r == ' ' {
			d.Dispatch(Key("space"))
			continue
		}
		d.Dispatch(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	d.Drain()
}

// PressAsync hands key presses to the model without draining: their
// commands run while the test waits with Until or Settle (for a key that
// starts long work, or a test that watches what happens in between).
func (d *Driver) PressAsync(keys ...string) {
	for _, k := range keys {
		d.Dispatch(Key(k))
	}
}

// TypeAsync types text, one key press per rune, without draining.
func (d *Driver) TypeAsync(text string) {
	for _, r := range text {
		if r == ' ' {
			d.Dispatch(Key("space"))
			continue
		}
		d.Dispatch(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// Until handles messages until cond holds; after Timeout it fails the test
// and shows the screen.
func (d *Driver) Until(cond func() bool) {
	d.t.Helper()
	deadline := time.After(d.Timeout)
	for !cond() {
		select {
		case r := <-d.msgs:
			d.handle(r)
		case <-deadline:
			d.t.Fatalf("tuitest: condition not reached within %s; screen:\n%s", d.Timeout, d.Plain())
		}
	}
}

// Settle handles messages for dur.
func (d *Driver) Settle(dur time.Duration) {
	end := time.After(dur)
	for {
		select {
		case r := <-d.msgs:
			d.handle(r)
		case <-end:
			return
		}
	}
}

// View is the model's view as it is now.
func (d *Driver) View() string { return d.view() }

// Pinned is the view through the ANSI256 colour profile (goldens).
func (d *Driver) Pinned() string { return Pinned(d.view()) }

// Plain is the view without any escape sequence.
func (d *Driver) Plain() string { return ansi.Strip(d.view()) }
