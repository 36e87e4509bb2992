// Package realollama is nova's real-server suite: it builds the real Ollama
// server (realollama/upstream, Ollama v0.17.4 with llama.cpp compiled in),
// generates tiny scripted models, serves them on a loopback port and runs
// nova's flows against them — the CLI as a user drives it (doctor, agent run
// with native tool calls, rehearsal, a build with apply) and the engine's
// model client (structured output, embeddings, and every failure mode:
// prompts that do not fit, replies cut at the token limit, repetition,
// stalls, 400 and 500 answers).
//
// `make test` builds the server (cmd/realserver, into REALOLLAMA_CACHE)
// beside the Go tests, then runs this suite on its own (`make test-real`
// alone). It runs under -race like the Go tests, and builds nova's binary
// the same way, so it reuses their build cache and checks the real flows
// for data races. Without CI set, a machine that cannot build the server
// (no C++ compiler or headers, not root to install them) is told what is
// missing and the suite skips; with CI set it fails.
package realollama
