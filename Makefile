# imbench: `make up && make run-scenario` is the main job, `make test` the tests.
#
#   make up                          build the tools once (.tools/), start the native stack
#   make run-scenario [SCENARIO=openim/test1] [TARGET=reference|openim] [SCALE=0.5] [RATE=] [VUS=]
#   make status | make down
#   make test                        everything CI runs
#   make proto                       regenerate k6/im/openim/pb from its .proto

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

TOOLS    := .tools
BIN      := $(TOOLS)/bin
SCENARIO ?= openim/test1
TARGET   ?= reference
SCALE    ?=
RATE     ?=
VUS      ?=

GO_SOURCES := go.mod go.sum $(shell find k6 targets cmd internal -name '*.go' -not -name '*_test.go' 2>/dev/null)
PROTOC_GEN_GO_VERSION := v1.36.11

.PHONY: help up down status run-scenario test tools proto check-proto unit e2e fmt-check

help:
	@sed -n '1,9p' Makefile | sed 's/^# \{0,1\}//'

## Tools ---------------------------------------------------------------------

$(BIN)/k6: $(GO_SOURCES)
	@mkdir -p $(BIN)
	go build -trimpath -o $@ ./k6

$(BIN)/imbench-target: $(GO_SOURCES)
	@mkdir -p $(BIN)
	go build -trimpath -o $@ ./targets/reference

$(BIN)/imbench: $(GO_SOURCES)
	@mkdir -p $(BIN)
	go build -trimpath -o $@ ./cmd/imbench

$(BIN)/protoc-gen-go:
	@mkdir -p $(BIN)
	GOBIN=$(abspath $(BIN)) go install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)

# Debian packages the tests need; installed once, only when missing.
APT_PACKAGES := protobuf-compiler
$(TOOLS)/.apt: 
	@mkdir -p $(TOOLS)
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi
	@touch $@

tools: $(BIN)/k6 $(BIN)/imbench-target $(BIN)/imbench

## The main job ----------------------------------------------------------------

up: tools
	@$(BIN)/imbench up

down:
	@if [ -x $(BIN)/imbench ]; then $(BIN)/imbench down; else echo "nothing to stop"; fi

status: $(BIN)/imbench
	@$(BIN)/imbench status

run-scenario: tools
	@$(BIN)/imbench run -scenario '$(SCENARIO)' -target '$(TARGET)' \
	  $(if $(SCALE),-scale '$(SCALE)') $(if $(RATE),-rate '$(RATE)') $(if $(VUS),-vus '$(VUS)')

## Tests -----------------------------------------------------------------------

proto: $(BIN)/protoc-gen-go $(TOOLS)/.apt
	cd k6/im/openim/pb && PATH=$(abspath $(BIN)):$$PATH protoc --go_out=. --go_opt=paths=source_relative openim.proto

# The committed generated code must be what its .proto generates.
check-proto: $(BIN)/protoc-gen-go $(TOOLS)/.apt
	@tmp=$$(mktemp -d); trap 'rm -rf $$tmp' EXIT; \
	cp k6/im/openim/pb/openim.proto $$tmp/ && \
	(cd $$tmp && PATH=$(abspath $(BIN)):$$PATH protoc --go_out=. --go_opt=paths=source_relative openim.proto) && \
	diff -u k6/im/openim/pb/openim.pb.go $$tmp/openim.pb.go >/dev/null || \
	{ echo "k6/im/openim/pb/openim.pb.go drifted from openim.proto: run make proto"; exit 1; }
	@echo "proto: generated code matches openim.proto"

fmt-check:
	@out=$$(gofmt -l k6 targets cmd internal); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	go vet ./...

test: tools fmt-check check-proto
	IMBENCH_TOOLS=$(abspath $(BIN)) go test -count=1 -timeout 20m ./...
