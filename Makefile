# nova — build, run, test, lint, bench, fuzz.
GO        ?= go
BIN       ?= bin/nova
WORKSPACE ?= $(CURDIR)/playground
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X main.version=$(VERSION)
FUZZTIME  ?= 10s
BENCHTIME ?= 1s

GOMOD_GO  := $(shell sed -n 's/^go //p' go.mod 2>/dev/null)

.PHONY: all build run playground test test-real vet fmt-check lint bench bench-peers fuzz golden clean

all: build

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/nova

## run: build nova and open the TUI on $(WORKSPACE) (created from the built-in defaults if missing)
run: build playground
	@./$(BIN) init "$(WORKSPACE)" >/dev/null
	./$(BIN) --workspace "$(WORKSPACE)"

## playground: create $(WORKSPACE); inside this repository it gets its own go.mod, so the Go code
## agents write there is its own module, never one of nova's packages (go vet ./..., make test)
playground:
	@mkdir -p "$(WORKSPACE)"
	@case "$(abspath $(WORKSPACE))/" in "$(CURDIR)"/?*) \
		[ -f "$(WORKSPACE)/go.mod" ] || printf 'module playground\n\ngo %s\n' "$(GOMOD_GO)" > "$(WORKSPACE)/go.mod";; \
	esac

## test: the whole suite (formatting, vet, race-enabled tests, the engine's import rule); the CLI
## suite runs twice (DESIGN): each command owning the workspace, then each one the client of an
## owner; then the real-server suite
test: fmt-check vet
	$(GO) test -race -count=1 -timeout 12m ./...
	NOVA_CLI_WORKSPACE=owner $(GO) test -race -count=1 -timeout 6m ./cmd/nova
	$(MAKE) test-real

## test-real: nova against the real Ollama server (realollama/, its own Go modules). Builds
## Ollama v0.17.4 with llama.cpp once (about 3 minutes on 2 cores; cached in the user's cache
## dir), generates tiny scripted models and runs the suite without -race. Installs the C headers
## it needs with apt-get when run as root; without CI set, a machine that cannot build the server
## is told what is missing and the suite skips; with CI set that is a failure.
test-real:
	cd realollama/upstream && $(GO) vet ./...
	cd realollama && $(GO) vet ./... && $(GO) test -count=1 -timeout 13m ./...

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './playground/*')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

## lint: golangci-lint v2, pinned through the tool directive in go.mod
lint:
	$(GO) tool golangci-lint run ./...

## bench: every benchmark (targets are in each package's benchmarks; figures go in issue notes).
## The speed rows of issue 16 run the real binary on a generated 100k vault: cmd/nova's
## vault_bench_test.go (BENCH=Cold|Import|Build|TUI|Version narrows the run).
BENCH ?= .
bench:
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -benchtime $(BENCHTIME) -timeout 60m ./...

## bench-peers: nova against bleve v2 (BM25) on the same 100k nodes and the BistroLens
## paraphrase set, side by side (a separate module: bleve never enters nova's module graph)
bench-peers:
	cd bench/peers && $(GO) run . -corpus $(CURDIR)/../shared/corpus/nova26/bistrolens-knowledge

## fuzz: run every fuzz target for $(FUZZTIME)
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
		for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
			echo "== $$pkg $$t"; $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg; \
		done; \
	done

## golden: rewrite the TUI golden files after an intended change
golden:
	$(GO) test ./tui/... -update

clean:
	rm -rf bin
