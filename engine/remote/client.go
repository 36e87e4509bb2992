package remote

import (
	"context"
	"fmt"
	"sync"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/rpc"
	"github.com/nova-dev/nova/engine/workspace"
)

// Client is the engine.Workspace a nova process uses when another process
// owns the workspace: the generated Workspace, with Info and Config fetched
// once when it connects. engine.Workspace promises that those two do no I/O
// (the TUI calls them while it renders), so they answer from memory; the
// configuration changes only through SetTheme, whose event (seen by any
// Subscribe of this client, or its own SetTheme) updates the copy.
type Client struct {
	*Workspace

	info engine.Info
	mu   sync.Mutex
	cfg  workspace.Config
}

var _ engine.Workspace = (*Client)(nil)

// Connect asks the owner behind c for the workspace's Info and Config and
// returns the client's Workspace.
func Connect(ctx context.Context, c *rpc.Client) (*Client, error) {
	w := &Client{Workspace: NewWorkspace(c)}
	if err := c.Call(ctx, "Info", nil, []any{&w.info}, rpc.CallOptions{Idempotent: true}); err != nil {
		return nil, fmt.Errorf("ask the owning nova about the workspace: %w", err)
	}
	if err := c.Call(ctx, "Config", nil, []any{&w.cfg}, rpc.CallOptions{Idempotent: true}); err != nil {
		return nil, fmt.Errorf("ask the owning nova about the workspace: %w", err)
	}
	return w, nil
}

// Info describes the workspace (as the owner reported it on connecting).
func (w *Client) Info() engine.Info { return w.info }

// Config is the owner's effective configuration.
func (w *Client) Config() workspace.Config {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cfg
}

func (w *Client) setTheme(name string) {
	w.mu.Lock()
	w.cfg.Theme = name
	w.mu.Unlock()
}

// SetTheme persists the theme in the owner and in the local copy.
func (w *Client) SetTheme(ctx context.Context, name string) error {
	if err := w.Workspace.SetTheme(ctx, name); err != nil {
		return err
	}
	w.setTheme(name)
	return nil
}

// Subscribe streams the owner's events; a theme switched by any process
// updates Config before its event is delivered.
func (w *Client) Subscribe(ctx context.Context) <-chan engine.Event {
	in := w.Workspace.Subscribe(ctx)
	out := make(chan engine.Event)
	go func() {
		defer close(out)
		for ev := range in {
			if ev.Type == engine.EventThemeChanged && ev.Text != "" {
				w.setTheme(ev.Text)
			}
			select {
			case out <- ev:
			case <-ctx.Done():
				return // the stream ends with ctx too
			}
		}
	}()
	return out
}
