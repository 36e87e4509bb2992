package ollamatest

import (
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// Gate is a TCP gate in front of a server: Down makes the address refuse
// connections (and drops the open ones), as a model server that died does;
// Up serves it again on the same address, as the server coming back. Point
// the code under test at Gate.URL.
type Gate struct {
	target string

	mu    sync.Mutex
	addr  string
	ln    net.Listener
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// NewGate opens a gate to s; it is closed on t.Cleanup.
func NewGate(t testing.TB, s *Server) *Gate {
	t.Helper()
	g, err := StartGate(s.Host(), "127.0.0.1:0")
	if err != nil {
		t.Fatalf("ollamatest gate: %v", err)
	}
	t.Cleanup(g.Close)
	return g
}

// StartGate opens a gate on listen (host:port, port 0 picks one) to
// target (host:port).
func StartGate(target, listen string) (*Gate, error) {
	g := &Gate{target: target, conns: map[net.Conn]struct{}{}}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, err
	}
	g.addr = ln.Addr().String()
	g.serve(ln)
	return g, nil
}

// URL is the gate's base URL.
func (g *Gate) URL() string { return "http://" + g.addr }

// Host is the gate's host:port.
func (g *Gate) Host() string { return g.addr }

// IsUp reports whether the gate accepts connections.
func (g *Gate) IsUp() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.ln != nil
}

// Down closes the address: new connections are refused, open ones dropped.
func (g *Gate) Down() {
	g.mu.Lock()
	ln := g.ln
	g.ln = nil
	conns := g.conns
	g.conns = map[net.Conn]struct{}{}
	g.mu.Unlock()
	if ln != nil {
		_ = ln.Close()
	}
	for c := range conns {
		_ = c.Close()
	}
}

// Up opens the address again (retrying briefly while the port is busy).
func (g *Gate) Up() error {
	g.mu.Lock()
	if g.ln != nil {
		g.mu.Unlock()
		return nil
	}
	g.mu.Unlock()
	var err error
	for range 50 {
		var ln net.Listener
		if ln, err = net.Listen("tcp", g.addr); err == nil {
			g.serve(ln)
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return err
}

// Close shuts the gate for good.
func (g *Gate) Close() {
	g.Down()
	g.wg.Wait()
}

func (g *Gate) serve(ln net.Listener) {
	g.mu.Lock()
	g.ln = ln
	g.mu.Unlock()
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				if errors.Is(err, net.ErrClosed) {
					return
				}
				continue
			}
			g.wg.Add(1)
			go g.pipe(c)
		}
	}()
}

func (g *Gate) pipe(c net.Conn) {
	defer g.wg.Done()
	up, err := net.DialTimeout("tcp", g.target, 5*time.Second)
	if err != nil {
		_ = c.Close()
		return
	}
	g.mu.Lock()
	if g.ln == nil { // went down meanwhile
		g.mu.Unlock()
		_ = c.Close()
		_ = up.Close()
		return
	}
	g.conns[c], g.conns[up] = struct{}{}, struct{}{}
	g.mu.Unlock()
	done := make(chan struct{}, 2)
	cp := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		_ = dst.Close()
		_ = src.Close()
		done <- struct{}{}
	}
	go cp(up, c)
	go cp(c, up)
	<-done
	<-done
	g.mu.Lock()
	delete(g.conns, c)
	delete(g.conns, up)
	g.mu.Unlock()
}
