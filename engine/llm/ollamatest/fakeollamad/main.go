// Command fakeollamad serves the fake Ollama (ollamatest) on a fixed address
// with a scripted scenario, for trying nova by hand without a model:
//
//	go run ./engine/llm/ollamatest/fakeollamad -addr 127.0.0.1:18434 -scenario health -chunk-delay 40ms
//	OLLAMA_HOST=http://127.0.0.1:18434 nova run "add a health check endpoint with tests"
//
// It speaks Ollama's wire protocol (see ollamatest) and stops on SIGINT or
// SIGTERM.
package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/llm/ollamatest/scenario"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:11434", "address to listen on")
	name := flag.String("scenario", "health", "scripted scenario: health (a goal run: spec, handler, tests), "+
		"health-ask (the same, the lead asks the user a question after the spec)")
	chunkDelay := flag.Duration("chunk-delay", 0, "pause before each streamed chunk (a live stream to watch)")
	latency := flag.Duration("latency", 0, "pause before each reply")
	flag.Parse()
	if *name != "health" && *name != "health-ask" {
		fmt.Fprintf(os.Stderr, "fakeollamad: unknown scenario %q (known: health, health-ask)\n", *name)
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fakeollamad: %v\n", err)
		os.Exit(1)
	}
	srv := ollamatest.StartOn(ln, ollamatest.WithModels(scenario.Models()...),
		ollamatest.WithHandler(scenario.HealthCheck(scenario.Options{ChunkDelay: *chunkDelay, Latency: *latency, Ask: *name == "health-ask"})))
	fmt.Fprintf(os.Stderr, "fake ollama (%s) at %s\n", *name, srv.URL())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	srv.Close()
}
