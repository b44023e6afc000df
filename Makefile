# make test   the test command: builds the real test control plane (kube-apiserver,
#             etcd), the pulumi CLI, Argo CD's controller, Flux's source- and
#             kustomize-controller and OpenTofu once into the user cache (20-30
#             min cold, seconds warm; installs Debian's redis-server when
#             missing), then runs every test with the race detector, the
#             real-cluster ones (TestCluster...) included. The timeout is go test's
#             per package: a cold cache on a busy 2-core machine needs more than
#             its default 10 minutes for the slowest packages. Test binaries
#             link without DWARF or the ELF symbol table (-ldflags='-s -w'):
#             ui/cli's links in 7.1 CPU-s instead of 8.4 with -w alone, and
#             panics and race reports keep their file:line (from the pcln
#             table). GORACE=atexit_sleep_ms=0: a race-enabled process
#             (each test binary, and each driftdeck the CLI and TUI tests
#             run) no longer sleeps a second as it exits (ui/cli alone:
#             209 s instead of 237 s; a race still fails the run).
# make tools  only builds (or checks) those binaries.
# make vet    gofmt and go vet.
# make fuzz   every fuzz test, two packages at a time (FUZZJOBS), for FUZZTIME each (5s; CI runs
#             it so), from its seeds and testdata/fuzz corpus; fails on a
#             finding and says how to reproduce it. FUZZBUILD=guided (the
#             default) builds with the fuzzing instrumentation, race from
#             make test's race-built packages, without coverage guidance (CI's).

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c

GO ?= go
TOOLS := testdata/tools/build.sh
# Packages to test; the report tool's and the bench's own tests live under testdata.
# go test starts them in this order: the longest first (3-7 min each under
# -race on 2 cores), then the ones of a minute or more, so that none of them
# starts last and runs alone.
LONG_PKGS := ./backend/actions ./ui/cli ./backend/fleet ./ui/e2e ./backend/realcontrollers ./backend/agent \
	./backend/sim ./backend/stackops ./backend/policy ./backend/kube ./backend/pulumirun
PKGS ?= $(LONG_PKGS) ./... ./testdata/tools/testreport ./testdata/bench/...
# Test binaries run at once. The real-cluster tests wait on API servers and
# controllers much of the time: four at a time keep two cores busy (warm CI
# 673 s against 783 s at three).
TEST_P ?= 4
# More go test flags, e.g. GOTESTFLAGS='-run TestCluster -count=1'.
GOTESTFLAGS ?=
# When set, the raw `go test -json` events are saved there (CI counts the
# real-cluster tests in them).
TEST_JSON ?=

FUZZTIME ?= 5s
FUZZBUILD ?= guided

.PHONY: tools test vet fuzz

tools:
	@$(TOOLS) all

test:
	@tools=$$($(TOOLS) all); \
	export KUBEBUILDER_ASSETS=$$(sed -n 's/^KUBEBUILDER_ASSETS=//p' <<<"$$tools"); \
	export DRIFTDECK_PULUMI=$$(sed -n 's/^DRIFTDECK_PULUMI=//p' <<<"$$tools"); \
	export DRIFTDECK_ARGOCD=$$(sed -n 's/^DRIFTDECK_ARGOCD=//p' <<<"$$tools"); \
	export DRIFTDECK_REDIS=$$(sed -n 's/^DRIFTDECK_REDIS=//p' <<<"$$tools"); \
	export DRIFTDECK_FLUX_DIR=$$(sed -n 's/^DRIFTDECK_FLUX_DIR=//p' <<<"$$tools"); \
	export DRIFTDECK_TOFU=$$(sed -n 's/^DRIFTDECK_TOFU=//p' <<<"$$tools"); \
	export DRIFTDECK_HELM=$$(sed -n 's/^DRIFTDECK_HELM=//p' <<<"$$tools"); \
	export DRIFTDECK_VERSITYGW=$$(sed -n 's/^DRIFTDECK_VERSITYGW=//p' <<<"$$tools"); \
	export DRIFTDECK_PROMTOOL=$$(sed -n 's/^DRIFTDECK_PROMTOOL=//p' <<<"$$tools"); \
	export DRIFTDECK_REQUIRE_CLUSTER=1; \
	export GORACE=$${GORACE:-atexit_sleep_ms=0}; \
	echo "$(strip go test -race -p $(TEST_P) -ldflags='-s -w' -timeout 45m $(GOTESTFLAGS) $(PKGS))"; \
	$(GO) test -race -p $(TEST_P) -ldflags='-s -w' -timeout 45m -json $(GOTESTFLAGS) $(PKGS) | \
		$(GO) run ./testdata/tools/testreport $(if $(TEST_JSON),-save $(TEST_JSON))

fuzz:
	@FUZZTIME=$(FUZZTIME) FUZZBUILD=$(FUZZBUILD) testdata/tools/fuzz.sh

vet:
	@unformatted=$$(gofmt -l .); \
	if [[ -n $$unformatted ]]; then echo "gofmt -l found unformatted files:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet $(PKGS)

# make build  the release binaries ./driftdeck and its helpers ./driftdeck-state
#             (state buckets), ./driftdeck-pulumi (Pulumi runs) and ./driftdeck-render
#             (git checkouts and kustomize for local diffs): stripped, and without kustomize's Go
#             plugin loader (driftdeck renders kustomizations, never loads plugins;
#             linking Go's plugin package keeps every exported symbol and costs
#             about 40 MB of resident memory).
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
BUILD_FLAGS := -trimpath -tags kustomize_disable_go_plugin_support \
	-ldflags "-s -w -X github.com/driftdeck/driftdeck/ui/cli.Version=$(VERSION)"

.PHONY: build
build:
	$(GO) build $(BUILD_FLAGS) -o driftdeck .
	$(GO) build $(BUILD_FLAGS) -o driftdeck-state ./cmd/driftdeck-state
	$(GO) build $(BUILD_FLAGS) -o driftdeck-pulumi ./cmd/driftdeck-pulumi
	$(GO) build $(BUILD_FLAGS) -o driftdeck-render ./cmd/driftdeck-render

# make bench  the fleet-scale benchmark (DESIGN.md section 6): a real control plane
#             seeded with 5,000 Applications in 50 ApplicationSets, 1,000 Stacks,
#             1,000 Flux and 200 Terraform units; one table of start-up, memory,
#             keystroke (flat list and open tree), idle and filter figures against
#             the bare LIST (BENCH_OUT=file also writes it there; BENCH_FLAGS passes
#             more flags, see go run ./testdata/bench -h); then the several-cluster
#             table (five control planes of 1,200 units at once, one slow, one
#             context unreachable; BENCH_CLUSTERS_OUT, BENCH_CLUSTERS_FLAGS); then the
#             Go benchmarks of the adapters, the store, the list, the diff and the
#             whole workbench. About 25 min on 2 quiet cores, warm. make
#             bench-clusters runs the several-cluster table alone (about 12 min).
BENCH_OUT ?=
BENCH_FLAGS ?=
BENCH_CLUSTERS_OUT ?=
BENCH_CLUSTERS_FLAGS ?=

.PHONY: bench bench-clusters

# bench_run builds the bench and the release binary and runs the bench with $(1).
define bench_run
	@tools=$$($(TOOLS) controlplane); \
	export KUBEBUILDER_ASSETS=$$(sed -n 's/^KUBEBUILDER_ASSETS=//p' <<<"$$tools"); \
	dir=$$(mktemp -d); trap 'rm -rf "$$dir"' EXIT; \
	$(GO) build -o "$$dir/bench" ./testdata/bench; \
	$(GO) build $(BUILD_FLAGS) -o "$$dir/driftdeck" .; \
	"$$dir/bench" -driftdeck "$$dir/driftdeck" $(1)
endef

bench:
	$(call bench_run,$(if $(BENCH_OUT),-out $(BENCH_OUT)) $(BENCH_FLAGS))
	$(call bench_run,-clusters 5 $(if $(BENCH_CLUSTERS_OUT),-out $(BENCH_CLUSTERS_OUT)) $(BENCH_CLUSTERS_FLAGS))
	$(GO) test -run '^$$' -bench . -benchmem ./backend/argocd ./backend/pulumiop ./backend/store ./backend/diff ./views/list ./views/diff ./ui

bench-clusters:
	$(call bench_run,-clusters 5 $(if $(BENCH_CLUSTERS_OUT),-out $(BENCH_CLUSTERS_OUT)) $(BENCH_CLUSTERS_FLAGS))
