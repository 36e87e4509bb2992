# nova — build, run, test, lint, bench, fuzz.
GO        ?= go
BIN       ?= bin/nova
WORKSPACE ?= $(CURDIR)/playground
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X main.version=$(VERSION)
FUZZTIME  ?= 10s
BENCHTIME ?= 1s

GOMOD_GO  := $(shell sed -n 's/^go //p' go.mod 2>/dev/null)

.PHONY: all build run playground test test-unit test-real real-server real-suite vet fmt-check lint bench bench-peers fuzz golden clean

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

## REALOLLAMA_CACHE: where the real Ollama server is built once and reused (across runs and clones;
## delete it for a cold build). Keyed inside by the Ollama release, the Go toolchain and the flags.
REALOLLAMA_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/nova/realollama
REAL_ENV  := NOVA_REALOLLAMA_CACHE="$(REALOLLAMA_CACHE)"

# $(call timed,WHAT,COMMAND): run COMMAND, then print how long it took and the load average.
timed = t0=$$(date +%s); $(2); rc=$$?; \
	echo "== phase $(1): $$(( $$(date +%s) - t0 ))s (load $$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)) rc=$$rc"; exit $$rc

## test: the whole suite: formatting; vet and the race-enabled Go tests while the real Ollama server
## builds beside them (a cold build takes minutes of mostly one core; cached afterwards); then the
## real-server suite (realollama/) on its own (its tests one at a time: run side by side they made the
## server's scheduler stall for over a minute, loading models with different contexts).
test: fmt-check
	@$(MAKE) --no-print-directory -j2 test-unit real-server
	@$(MAKE) --no-print-directory real-suite

## test-unit: vet, then nova's Go tests with the race detector (the engine's import rule included);
## the CLI suite runs twice (DESIGN): each command owning the workspace, then each one the client of
## an owner
test-unit:
	@$(call timed,vet,$(GO) vet ./...)
	@$(call timed,unit tests,$(GO) test -race -count=1 -timeout 12m ./...)
	@$(call timed,team cluster (no race detector),$(GO) test -count=1 -timeout 3m -run TestClusterOfThreeHealsWithoutLossOrDoubles ./engine/team)
	@$(call timed,CLI suite as a client,NOVA_CLI_WORKSPACE=owner $(GO) test -race -count=1 -timeout 6m ./cmd/nova)

## test-real: the real-server suite alone: nova against the real Ollama server (realollama/, its own
## Go modules). Builds Ollama v0.17.4 with llama.cpp once into $(REALOLLAMA_CACHE), generates tiny
## scripted models and runs nova's flows against it. Installs the C headers it needs with apt-get
## when run as root; without CI set, a machine that cannot build the server is told what is missing
## and the suite skips; with CI set that is a failure.
test-real: real-server
	@$(MAKE) --no-print-directory real-suite

## real-server: download and build the real Ollama server into $(REALOLLAMA_CACHE) (nothing when cached)
real-server:
	@$(call timed,real server (download + build or cache),cd realollama && $(REAL_ENV) $(GO) run ./cmd/realserver >/dev/null)

real-suite:
	@$(call timed,real-server vet,cd realollama/upstream && $(GO) vet ./... && cd .. && $(GO) vet ./...)
	@$(call timed,real-server suite,cd realollama && $(REAL_ENV) $(GO) test -race -v -count=1 -timeout 13m ./...)

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './playground/*')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

## lint: golangci-lint v2, pinned through the tool directive in tools/go.mod (its own module, so
## the linter's ~230 modules never enter nova's go.mod)
lint:
	$(GO) tool -modfile=tools/go.mod golangci-lint run ./...

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
