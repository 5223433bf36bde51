# imbench: `make up && make run-scenario` is the main job, `make test` the tests.
#
#   make up                          build the tools once (.tools/), start the native stack
#   make run-scenario [SCENARIO=openim/test1] [TARGET=reference|openim|wukongim|wildfire] [SCALE=0.5] [RATE=] [DURATION=] [VUS=] [SEGMENTS=] [PROTOCOL=] [RUN_ID=] [QUIET=1]
#   make limit [SCENARIO=] [TARGET=] [SLO='e2e_p99<1000,lost==0,late==0,unchecked==0'] [DIMENSION=rate|users] [START=] [RESOLUTION=0.05] [MAX=] [STEP=30s] [BEFORE_STEP='cmd']   the most load held within SLO; what gave out first
#   make report [RUN=<run id>]       results/<run>/report.md and report.html (run-scenario writes them too)
#   make compare A=<run id> B=<run id> [THRESHOLD=10] [TOLERANCE=0]   exit 3 when B is worse than A (any rise of an integrity count beyond TOLERANCE)
#   make clean-target [RUN=<run id>] [TARGET=]   remove a run's users, groups and chatrooms from its target (a run does at its end unless IM_KEEP=1); without RUN, list the runs that may have left some
#   make bench [ONLY=density,baseline,delivery,distributed,flat] [RATES=50,400,1100,2000] [ROUNDS=3] [FLAT=10m] [PROTOCOLS=wukongim,wildfire]   generator figures, results/bench/*.json
#   make bench-page [IN=results/bench/<time>.json]   docs/benchmark.md from a bench's JSON (default: the newest)
#   make scenarios                   every scenario, what it reproduces and its purpose
#   make soak [SOAK=1h] [SOAK_RATE=400]   wukongim/stability for SOAK: generator RSS slope per hour
#   make status | make down
#   make test                        everything CI runs (the fuzz targets' seed corpora included)
#   make test-short                  the inner loop: every test but the whole runs and the timed ones (-short)
#   make fuzz [FUZZTIME=30s]         every Fuzz* target for FUZZTIME each: executions and findings
#   make chaos                       the stack's own failures, verbosely: storm, gateway and target killed, segment killed, Prometheus killed
#   make proto                       regenerate wire/openim/pb from its .proto
#   make cluster-up | cluster-down | cluster-status   a single-node Kubernetes on 127.0.0.1 (built once into .tools/kubernetes)
#   make run-scenario SEGMENTS=4 ON=cluster   the segments as pods of that cluster (ON=kubernetes: the current kubeconfig context, IMAGE=)
#   make test-cluster                the distributed run on that cluster: three protocols, a pod deleted, a CPU quota

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

TOOLS    := .tools
BIN      := $(TOOLS)/bin
SCENARIO ?= openim/test1
TARGET   ?= reference
SCALE    ?=
RATE     ?=
DURATION ?=
VUS      ?=
SEGMENTS ?=
PROTOCOL ?=
RUN_ID   ?=
SLO      ?=
DIMENSION ?=
START    ?=
RESOLUTION ?=
MAX      ?=
STEP     ?=
RUN      ?=
A        ?=
B        ?=
THRESHOLD ?=
TOLERANCE ?=
FUZZTIME ?= 30s
ONLY     ?=
RATES    ?=
ON       ?=
IMAGE    ?=
PROTOCOLS ?=
IN       ?=

# every Go file of the module (tools/ holds other modules)
GO_SOURCES := go.mod go.sum $(shell find . -name '*.go' -not -name '*_test.go' -not -path './tools/*' -not -path './.tools/*' 2>/dev/null)
PROTOC_GEN_GO_VERSION := v1.36.11
PROMETHEUS_VERSION    := 3.10.0

.PHONY: test-short cluster-tools cluster-up cluster-down cluster-status test-cluster help up down status scenarios run-scenario limit soak report compare clean-target bench bench-page test fuzz chaos tools stack-tools apt proto check-proto fmt-check generate promtool-test apt-test apt-install typecheck compare-servers

help:
	@sed -n '/^$$/q;p' Makefile | sed 's/^# \{0,1\}//'

## Tools ---------------------------------------------------------------------

# imbench's own programs are built static, as compose/Dockerfile builds them:
# a run maps no libc (1.3 MB of its RSS) and resolves names in Go.
$(BIN)/imbench-target: $(GO_SOURCES)
	@mkdir -p $(BIN)
	CGO_ENABLED=0 go build -trimpath -o $@ ./targets/reference

$(BIN)/imbench: $(GO_SOURCES)
	@mkdir -p $(BIN)
	CGO_ENABLED=0 go build -trimpath -o $@ ./cmd/imbench

# A real Wildfire's health and online count for Prometheus (exporters/wildfire).
$(BIN)/wildfire-exporter: $(GO_SOURCES)
	@mkdir -p $(BIN)
	CGO_ENABLED=0 go build -trimpath -o $@ ./exporters/wildfire/cmd/wildfire-exporter

$(BIN)/protoc-gen-go:
	@mkdir -p $(BIN)
	GOBIN=$(abspath $(BIN)) go install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)

# Prometheus, promtool and VictoriaLogs build from wrapper modules in tools/
# (see tools/README.md): once, into .tools/bin, like everything else.
# remove_all_sd leaves out Prometheus's cloud service discoveries (AWS, Azure,
# GCE, Kubernetes, …): the stacks use static, file, HTTP and (compose) DNS
# discovery only, and the build takes a third of the time.
$(BIN)/prometheus: tools/prometheus/go.mod tools/prometheus/go.sum
	@mkdir -p $(BIN)
	cd tools/prometheus && go build -trimpath -tags remove_all_sd,enable_dns_sd -ldflags "-X github.com/prometheus/common/version.Version=$(PROMETHEUS_VERSION)" \
	  -o $(abspath $@) github.com/prometheus/prometheus/cmd/prometheus

$(BIN)/promtool: tools/prometheus/go.mod tools/prometheus/go.sum
	@mkdir -p $(BIN)
	cd tools/prometheus && go build -trimpath -tags remove_all_sd,enable_dns_sd -ldflags "-X github.com/prometheus/common/version.Version=$(PROMETHEUS_VERSION)" \
	  -o $(abspath $@) github.com/prometheus/prometheus/cmd/promtool

$(BIN)/victoria-logs: tools/victorialogs/go.mod tools/victorialogs/go.sum
	@mkdir -p $(BIN)
	cd tools/victorialogs && go build -trimpath -o $(abspath $@) github.com/VictoriaMetrics/VictoriaLogs/app/victoria-logs

# Debian packages, installed only when missing: the exporters the stack runs
# (make up); protoc for the proto drift check, redis-server for the
# process-exporter test and chromium for the report test (make test).
STACK_APT := prometheus-node-exporter prometheus-process-exporter
TEST_APT  := protobuf-compiler redis-server chromium
apt:
	@$(MAKE) --no-print-directory apt-install PACKAGES='$(STACK_APT)'
apt-test:
	@$(MAKE) --no-print-directory apt-install PACKAGES='$(TEST_APT)'
apt-install:
	@missing=""; for p in $(PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

stack-tools: $(BIN)/prometheus $(BIN)/promtool $(BIN)/victoria-logs apt

tools: $(BIN)/imbench-target $(BIN)/imbench $(BIN)/wildfire-exporter

# TypeScript (Apache-2.0, from npm at the version tools/typescript pins)
# checks load/imbench.d.ts and the worked examples written against it.
TSC := $(TOOLS)/typescript/node_modules/.bin/tsc
$(TSC): tools/typescript/package.json tools/typescript/package-lock.json
	@mkdir -p $(TOOLS)/typescript
	cp tools/typescript/package.json tools/typescript/package-lock.json $(TOOLS)/typescript/
	cd $(TOOLS)/typescript && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	@touch $@

typecheck: $(TSC)
	$(TSC) -p tools/typescript/tsconfig.json

## The main job ----------------------------------------------------------------

up: tools stack-tools
	@IMBENCH_TARGET_CPUS='$(TARGET_CPUS)' $(BIN)/imbench up -target '$(TARGET)' 

down:
	@if [ -x $(BIN)/imbench ]; then $(BIN)/imbench down; else echo "nothing to stop"; fi

status: $(BIN)/imbench
	@$(BIN)/imbench status

scenarios: $(BIN)/imbench
	@$(BIN)/imbench scenarios

run-scenario: tools
	@$(if $(filter cluster,$(ON)),$(MAKE) --no-print-directory $(BIN)/imbench-cluster && $(BIN)/imbench-cluster image -tag $(CLUSTER_IMAGE) >/dev/null && )$(BIN)/imbench run -scenario '$(SCENARIO)' -target '$(TARGET)' \
	  $(if $(SCALE),-scale '$(SCALE)') $(if $(RATE),-rate '$(RATE)') $(if $(DURATION),-duration '$(DURATION)') $(if $(VUS),-vus '$(VUS)') \
	  $(if $(SEGMENTS),-segments '$(SEGMENTS)') $(if $(PROTOCOL),-protocol '$(PROTOCOL)') $(if $(RUN_ID),-run-id '$(RUN_ID)') $(if $(QUIET),-q) \
	  $(if $(filter cluster,$(ON)),$(CLUSTER_RUN),$(if $(ON),-on '$(ON)' $(if $(IMAGE),-image '$(IMAGE)')))

# A limit search: the scenario's load rises step by step (each a whole run,
# every delivery verified) until a step breaks the objective, then the
# interval narrows to the resolution; results/<search id>/limit.*.
limit: tools
	@$(if $(LIMIT_CPUS),taskset -c '$(LIMIT_CPUS)') $(BIN)/imbench limit -scenario '$(SCENARIO)' -target '$(TARGET)' \
	  $(if $(SLO),-slo '$(SLO)') $(if $(DIMENSION),-dimension '$(DIMENSION)') $(if $(START),-start '$(START)') \
	  $(if $(RESOLUTION),-resolution '$(RESOLUTION)') $(if $(MAX),-max '$(MAX)') $(if $(STEP),-step '$(STEP)') \
	  $(if $(SCALE),-scale '$(SCALE)') $(if $(PROTOCOL),-protocol '$(PROTOCOL)') $(if $(RUN_ID),-run-id '$(RUN_ID)') $(if $(QUIET),-q) \
	  $(if $(BEFORE_STEP),-before-step '$(BEFORE_STEP)')

# One workload on several servers, each alone in turn, side by side
# (runbooks/compare-servers.md): a fixed load and a limit search on each;
# results/<id>/comparison.{json,md,html}.
SERVERS ?= runbooks/compare-servers.yaml
compare-servers: tools
	@$(if $(LIMIT_CPUS),taskset -c '$(LIMIT_CPUS)') $(BIN)/imbench compare-servers -scenario '$(if $(filter command line,$(origin SCENARIO)),$(SCENARIO),compare/pairs-groups)' -servers '$(SERVERS)' \
	  $(if $(RATE),-rate '$(RATE)') $(if $(DURATION),-duration '$(DURATION)') $(if $(SCALE),-scale '$(SCALE)') $(if $(SLO),-slo '$(SLO)') \
	  $(if $(START),-start '$(START)') $(if $(STEP),-step '$(STEP)') $(if $(RESOLUTION),-resolution '$(RESOLUTION)') $(if $(MAX),-max '$(MAX)') \
	  $(if $(NO_LIMIT),-no-limit) $(if $(RUN_ID),-run-id '$(RUN_ID)') $(if $(QUIET),-q)

generate:
	go run ./cmd/imbench generate

# The generator's density, CPU per delivery and 100,000 users, each against
# a baseline measured in the same run, and its memory over a long run at a
# fixed rate (FLAT: how long). Soft limits go up to the hard ones.
bench: tools
	@ulimit -n $$(ulimit -Hn) && $(BIN)/imbench bench $(if $(ONLY),-only '$(ONLY)') $(if $(RATES),-rates '$(RATES)') $(if $(ROUNDS),-rounds '$(ROUNDS)') $(if $(FLAT),-flat '$(FLAT)') \
	  $(if $(PROTOCOLS),-protocols '$(PROTOCOLS)')

bench-page: $(BIN)/imbench
	@$(BIN)/imbench bench-page $(if $(IN),-in '$(IN)')

# WuKongIM's stability mix at a rate this machine holds, for SOAK (default
# 1h): the generator's RSS, files and threads over time, slope per hour.
soak: tools
	@ulimit -n $$(ulimit -Hn) && $(BIN)/imbench bench -only flat -flat-scenario wukongim/stability \
	  -flat '$(or $(SOAK),1h)' -flat-rate '$(or $(SOAK_RATE),400)'

report: $(BIN)/imbench
	@$(BIN)/imbench report $(if $(RUN),-run '$(RUN)')

compare: $(BIN)/imbench
	@$(BIN)/imbench compare -a '$(A)' -b '$(B)' $(if $(THRESHOLD),-threshold '$(THRESHOLD)') $(if $(TOLERANCE),-tolerance '$(TOLERANCE)')

# What a run made on its target (users, groups, chatrooms), removed through
# the target's admin API, for a run killed before its end, kept (IM_KEEP=1)
# or split (SEGMENTS): its results/<RUN>/setup.json names the ids. The
# target is the run's unless TARGET is given; IM_SECRET and IM_<NAME>_URL as
# for run-scenario.
clean-target: $(BIN)/imbench
	@$(BIN)/imbench clean-target $(if $(RUN),-run '$(RUN)') $(if $(filter-out file,$(origin TARGET)),-target '$(TARGET)')

## A test cluster --------------------------------------------------------------

# A single-node Kubernetes on 127.0.0.1 (kube/node), built from the Go module
# proxy (tools/kubernetes, tools/containerd) and Debian's etcd, runc and CNI
# plugins, for `make test-cluster` and a first distributed run. Built once
# (about 30 minutes cold on 2 cores); a warm start takes seconds.
CLUSTER_BIN  := $(TOOLS)/kubernetes/bin
CLUSTER_APT  := etcd-server runc containernetworking-plugins
KUBE_VERSION := v1.37.2
KUBE_VERSION_VARS := gitVersion=$(KUBE_VERSION) gitMajor=1 gitMinor=37 gitTreeState=clean buildDate=2026-01-01T00:00:00Z
KUBE_LDFLAGS := -s -w $(foreach p,k8s.io/component-base/version k8s.io/client-go/pkg/version,$(foreach v,$(KUBE_VERSION_VARS),-X $(p).$(v)))
CLUSTER_IMAGE := imbench.local/imbench:dev
CLUSTER_RUN = -on kubernetes -kubeconfig $(abspath .run/cluster/kubeconfig) -image $(CLUSTER_IMAGE) -host-network

$(CLUSTER_BIN)/.kubernetes-$(KUBE_VERSION): tools/kubernetes/go.mod tools/kubernetes/go.sum
	@mkdir -p $(CLUSTER_BIN)
	cd tools/kubernetes && nice -n 10 go build -trimpath -ldflags '$(KUBE_LDFLAGS)' -o $(abspath $(CLUSTER_BIN))/ \
	  k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kube-scheduler \
	  k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kubectl
	@touch $@

$(CLUSTER_BIN)/.containerd: tools/containerd/go.mod tools/containerd/go.sum
	@mkdir -p $(CLUSTER_BIN)
	cd tools/containerd && CGO_ENABLED=0 nice -n 10 go build -trimpath -tags 'no_btrfs no_devmapper no_zfs' \
	  -ldflags '-s -w -X github.com/containerd/containerd/v2/version.Version=v2.4.2' -o $(abspath $(CLUSTER_BIN))/ \
	  github.com/containerd/containerd/v2/cmd/containerd github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2 \
	  github.com/containerd/containerd/v2/cmd/ctr
	@touch $@

$(BIN)/imbench-cluster: $(GO_SOURCES)
	@mkdir -p $(BIN)
	CGO_ENABLED=0 go build -trimpath -o $@ ./cmd/imbench-cluster

cluster-tools: $(CLUSTER_BIN)/.kubernetes-$(KUBE_VERSION) $(CLUSTER_BIN)/.containerd $(BIN)/imbench-cluster
	@$(MAKE) --no-print-directory apt-install PACKAGES='$(CLUSTER_APT)'

cluster-up: cluster-tools tools
	@$(BIN)/imbench-cluster up
	@$(BIN)/imbench-cluster image -tag $(CLUSTER_IMAGE)

cluster-down:
	@if [ -x $(BIN)/imbench-cluster ]; then $(BIN)/imbench-cluster down; else echo "nothing to stop"; fi

cluster-status: $(BIN)/imbench-cluster
	@$(BIN)/imbench-cluster status

# The distributed run on a cluster the test starts (and stops, unless one
# was up; here too, should the test die first): three protocols as 4 pods
# beside one machine's runs, a pod deleted mid-run, pods under a CPU quota,
# what the cluster cannot run, a target the pods cannot reach, Ctrl-C.
test-cluster: tools stack-tools cluster-tools
	@up=0; $(BIN)/imbench-cluster status >/dev/null 2>&1 && up=1; \
	IMBENCH_TOOLS=$(abspath $(BIN)) IMBENCH_CLUSTER=$(abspath $(CLUSTER_BIN)) go test -p 1 -count=1 -timeout 40m -run 'TestCluster' ./cmd/imbench || rc=$$?; \
	if [ $$up = 0 ] && $(BIN)/imbench-cluster status >/dev/null 2>&1; then $(BIN)/imbench-cluster down; fi; \
	exit $${rc:-0}

## Tests -----------------------------------------------------------------------

proto: $(BIN)/protoc-gen-go apt-test
	cd wire/openim/pb && PATH=$(abspath $(BIN)):$$PATH protoc --go_out=. --go_opt=paths=source_relative openim.proto
	cd wire/wildfire/pb && PATH=$(abspath $(BIN)):$$PATH protoc --go_out=. --go_opt=paths=source_relative wildfire.proto

# The committed generated code must be what its .proto generates.
check-proto: $(BIN)/protoc-gen-go apt-test
	@for p in openim wildfire; do \
	  tmp=$$(mktemp -d); cp wire/$$p/pb/$$p.proto $$tmp/ && \
	  (cd $$tmp && PATH=$(abspath $(BIN)):$$PATH protoc --go_out=. --go_opt=paths=source_relative $$p.proto) && \
	  diff -u wire/$$p/pb/$$p.pb.go $$tmp/$$p.pb.go >/dev/null || \
	  { rm -rf $$tmp; echo "wire/$$p/pb/$$p.pb.go drifted from $$p.proto: run make proto"; exit 1; }; \
	  rm -rf $$tmp; echo "proto: generated code matches $$p.proto"; \
	done

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^tools/')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	go vet ./...

promtool-test: $(BIN)/promtool
	$(BIN)/promtool check config prometheus/prometheus.yml
	$(BIN)/promtool check config compose/prometheus.yml
	cd prometheus/tests && $(abspath $(BIN))/promtool test rules *.yml

# Two phases (internal/testmachine): the tests that measure time, latency
# or CPU keep the machine to themselves, one package at a time; then the
# rest share it, two packages at once and each package's long tests (whole
# runs, counted exactly whatever runs beside them) four at a time. Both
# phases run; either failing fails the target.
test: tools stack-tools apt-test fmt-check check-proto promtool-test typecheck
	@export IMBENCH_TOOLS=$(abspath $(BIN)); rc=0; alone=$$(go run ./internal/testmachine/alonetests); \
	echo "make test: the tests that measure time, alone: go test -p 1 $$alone"; \
	IMBENCH_TESTS=alone go test -p 1 -count=1 -timeout 30m $$alone || rc=$$?; \
	echo "make test: the rest, side by side: go test -p 2 -parallel 4 ./..."; \
	IMBENCH_TESTS=shared go test -p 2 -parallel 4 -count=1 -timeout 40m ./... || rc=$$?; \
	exit $$rc

# The inner loop: every test but the whole runs and the timed ones (-short).
test-short: tools fmt-check
	IMBENCH_TOOLS=$(abspath $(BIN)) go test -short -p 2 -count=1 -timeout 10m ./...

# The stack's own failures, each an end-to-end test with exact accounting
# (all of them are in `make test` too): a reconnect storm per protocol, a
# gateway killed and restarted, the target restarted with and without its
# state log, a segment's process killed, Prometheus killed mid-run (the stack
# test, with the live view).
chaos: tools stack-tools
	@export IMBENCH_TOOLS=$(abspath $(BIN)); show='^(=== RUN|--- |ok|FAIL|PASS)|\.go:[0-9]+: '; \
	go test -p 1 -count=1 -timeout 40m -v -run 'TestChaos|TestRestartWithStateLog|TestStackReportsHolesWherePrometheusWasDown|TestStackServesTheLiveView' ./cmd/imbench 2>&1 | grep -E "$$show"; \
	go test -p 1 -count=1 -timeout 20m -v -run 'TestConformance$$/^(storm|disconnect)$$' ./load/openim ./load/wukongim ./load/wildfire 2>&1 | grep -E "$$show"

# Every Fuzz* target of the module, one after the other, each fuzzed for
# FUZZTIME (niced: two cores): per target its executions and what it found.
# A failing input is written to that package's testdata/fuzz/<target>/,
# where it stays as a seed `make test` runs; any failure fails the target,
# but for a bare "context deadline exceeded" as the time runs out with no
# input written and the seeds replaying clean: a race in Go's fuzzing
# coordinator under load (go.dev/issue/75804, fixed in Go 1.27).
fuzz:
	@total=0; failed=0; \
	for dir in $$(grep -rl --include='*_test.go' '^func Fuzz' . | grep -v '^\./\(tools\|\.tools\)/' | xargs -n1 dirname | sort -u); do \
	  if ! names=$$(nice -n 10 go test -list '^Fuzz' $$dir 2>&1); then \
	    echo "$$dir: does not build:"; echo "$$names" | head -20 || true; failed=$$((failed+1)); continue; \
	  fi; \
	  for name in $$(echo "$$names" | grep '^Fuzz' || true); do \
	    total=$$((total+1)); log=$$(mktemp); \
	    input=; \
	    if nice -n 10 go test -run '^$$' -fuzz "^$$name\$$" -fuzztime '$(FUZZTIME)' $$dir >$$log 2>&1; then \
	      found="nothing found"; \
	    elif input=$$(grep -o 'testdata/fuzz/[^ ]*' $$log | head -1 || true); [ -z "$$input" ] && \
	      grep -q '^ *context deadline exceeded$$' $$log && ! grep -q 'panic\|failure while testing' $$log && \
	      nice -n 10 go test -count=1 -run "^$$name\$$" $$dir >/dev/null 2>&1; then \
	      found="nothing found (go.dev/issue/75804: a bare deadline at the end, seeds replay clean)"; \
	    else \
	      failed=$$((failed+1)); \
	      found="$${input:+FOUND: $$dir/$$input}"; found="$${found:-FAILED}"; \
	    fi; \
	    execs=$$(grep -o 'execs: [0-9]*' $$log | tail -1 | cut -d' ' -f2 || true); \
	    printf '%-52s %12s execs  %s\n' "$${dir#./}.$$name" "$${execs:-0}" "$$found"; \
	    if [ "$${found#nothing found}" = "$$found" ]; then grep -v '^fuzz: elapsed' $$log | head -30 | sed 's/^/    /' || true; fi; \
	    rm -f $$log; \
	  done; \
	done; \
	echo "make fuzz: $$total targets, $(FUZZTIME) each, $$failed failed"; \
	[ $$failed -eq 0 ]
