package owner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// NotExclusiveError says who else uses the workspace. errors.Is(err,
// ErrNotExclusive) holds.
type NotExclusiveError struct {
	// Op is the refused operation ("db compact").
	Op string
	// Owner is the owning process when it is another one (PID 0 when this
	// process owns the workspace and Clients are attached).
	Owner Info
	// Clients are the processes attached to this process's owner.
	Clients []ClientInfo
}

func (e *NotExclusiveError) Error() string {
	if e.Owner.PID != 0 {
		return fmt.Sprintf("%s needs the workspace to itself, but nova pid %d owns it (since %s%s): close it (or stop `nova serve`) and run %s again",
			e.Op, e.Owner.PID, e.Owner.Since.Local().Format(time.DateTime), clientsNote(e.Owner.Others()), e.Op)
	}
	return fmt.Sprintf("%s needs the workspace to itself, but %s attached (%s): close them and run %s again",
		e.Op, plural(len(e.Clients), "nova process is", "nova processes are"), pids(e.Clients), e.Op)
}

func (e *NotExclusiveError) Is(target error) bool { return target == ErrNotExclusive }

func clientsNote(cs []ClientInfo) string {
	if len(cs) == 0 {
		return ""
	}
	return ", with " + plural(len(cs), "client", "clients") + " attached: " + pids(cs)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func pids(cs []ClientInfo) string {
	var b strings.Builder
	for i, c := range cs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("pid ")
		b.WriteString(strconv.Itoa(c.PID))
	}
	return b.String()
}

// Exclusive runs fn as the only user of the workspace: it refuses with
// ErrNotExclusive (naming the clients) when other processes are attached,
// and while fn runs every request gets rpc.ErrBusy, which clients wait out
// by themselves. The database stays open: fn gets the served value.
func (o *Owner[T]) Exclusive(ctx context.Context, op string, fn func(ctx context.Context, v T) error) error {
	v, err := o.enterExclusive(op)
	if err != nil {
		return err
	}
	defer o.leaveExclusive()
	return fn(ctx, v)
}

// ExclusiveClosed is Exclusive with the database closed while fn runs (db
// compact and db recover open the file themselves), then opened again and
// served. The socket stays up meanwhile, answering rpc.ErrBusy, so no other
// nova tries to take the lock. If the database cannot be opened again, the
// owner stops serving and the error is returned.
func (o *Owner[T]) ExclusiveClosed(ctx context.Context, op string, fn func(ctx context.Context) error) error {
	v, err := o.enterExclusive(op)
	if err != nil {
		return err
	}
	defer o.leaveExclusive()
	if err := v.Close(); err != nil {
		return fmt.Errorf("%s: close the workspace: %w", op, err)
	}
	fnErr := fn(ctx)
	nv, err := o.opts.Open(context.WithoutCancel(ctx), 10*time.Second)
	if err == nil {
		handler, herr := o.opts.Handler(nv)
		if herr != nil {
			_ = nv.Close()
			err = herr
		} else {
			o.mu.Lock()
			o.value, o.handler = nv, handler
			o.mu.Unlock()
		}
	}
	if err != nil {
		o.stopServing()
		o.closeOnce.Do(func() { o.closeErr = err })
		return errors.Join(fnErr, fmt.Errorf("%s: open the workspace again: %w", op, err))
	}
	return fnErr
}

func (o *Owner[T]) enterExclusive(op string) (T, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	var zero T
	switch {
	case o.stopped:
		return zero, fmt.Errorf("%s: %w", op, ErrNoOwner)
	case o.exclusive != "":
		return zero, fmt.Errorf("%s: %w (%s is running)", op, ErrNotExclusive, o.exclusive)
	}
	if cs := o.clientsLocked(nil); len(cs) > 0 {
		return zero, &NotExclusiveError{Op: op, Clients: cs}
	}
	o.exclusive = op
	return o.value, nil
}

func (o *Owner[T]) leaveExclusive() {
	o.mu.Lock()
	o.exclusive = ""
	o.mu.Unlock()
}

// RunExclusive is an exclusive operation run from a command (`nova db
// compact`): it joins the workspace; when another process owns it, it
// refuses with ErrNotExclusive naming that owner; otherwise it owns it,
// runs fn with the database closed (ExclusiveClosed), and closes.
func RunExclusive[T io.Closer](ctx context.Context, opts Options[T], op string, fn func(ctx context.Context) error) error {
	opts.Mode = Auto
	s, err := Join(ctx, opts)
	if err != nil {
		return err
	}
	if s.Owner == nil {
		_ = s.Close()
		return &NotExclusiveError{Op: op, Owner: s.Info}
	}
	runErr := s.Owner.ExclusiveClosed(ctx, op, fn)
	return errors.Join(runErr, s.Owner.Close())
}
