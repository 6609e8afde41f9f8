# SPDX-License-Identifier: GPL-2.0
#
# grtrace: GPU ring trace.  Entry point for building, booting and testing
# the two patch series (kernel, tools) against Debian's linux-source-7.3,
# and the kernel series' 6.12 backport.
#
#   make demo    build the patched kernel, boot it in QEMU, trace a real
#                virtio-gpu workload; results in ./results/demo
#   make test    the newcomer's tier: the series on mainline, built and
#                booted with every guest suite, the tool's tests, fuzz,
#                checkpatch, docs; the last line is "N passed, N failed,
#                N skipped, N cached"
#   make check   make test, every patch prefix, the =n and no-debugfs
#                kernels, the 6.12 backport built and booted (CI's)
#   make bench   cost per event of each sink vs a bare TRACE_EVENT
#   make bench-reader  the tool's readers: MB/s, events/s, peak RSS
#   make fuzz    fuzz the tool's readers FUZZ_TIME seconds (600); corpus
#                kept in $(GRTRACE_CACHE)/fuzz-corpus, failing inputs and
#                the log in ./results/fuzz
#
#   make edit    a git tree of the kernel with the series as commits
#   make export  patches/ and the folders from that tree
#   make series  folder edits -> fixup commits -> patches/ (via make edit)
#
# Caches live in $(GRTRACE_CACHE) (default ~/.cache/grtrace).  Set
# KERNEL_SRC=/path to use a kernel tree of your own instead of the
# unpacked Debian one (the series is applied to it with quilt).

SHELL := /bin/bash
S := scripts

.PHONY: all help deps edit export series check-series tree kernel uml-kunit initramfs \
	guest-test test check demo bench bench-reader fuzz bisect configs checkpatch clean

all: help

help:
	@sed -n '3,/^[^#]/s/^# \{0,1\}//p' Makefile

deps:
	@$(S)/deps.sh

# The series: patches/ is the series; the folders are exported from it.
edit: deps
	@$(S)/series.sh edit

export:
	@$(S)/series.sh export

series: deps
	@$(S)/series.sh fold

tree: deps
	@$(S)/tree.sh

# The tree first: the check compares it with git am of patches/.
check-series: tree
	@$(S)/series.sh check

kernel: check-series
	@$(S)/kernel.sh

uml-kunit: check-series
	@$(S)/uml-kunit.sh

initramfs: kernel
	@$(S)/guest/build.sh

guest-test: initramfs
	@$(S)/guest/test.sh

checkpatch: tree
	@$(S)/checkpatch.sh

configs: kernel
	@$(S)/build-config.sh

bisect: kernel
	@$(S)/bisect-check.sh

test: deps
	@$(S)/test.sh test

check: deps
	@$(S)/test.sh check

demo: initramfs
	@$(S)/guest/demo.sh

bench: tree
	@$(S)/bench.sh

bench-reader: deps
	@$(S)/bench-reader.sh

FUZZ_TIME ?= 600
fuzz: tree
	@FUZZ_TIME=$(FUZZ_TIME) FUZZ_ARTIFACTS=$(CURDIR)/results/fuzz \
		FUZZ_CORPUS=$${GRTRACE_CACHE:-$$HOME/.cache/grtrace}/fuzz-corpus $(S)/test-fuzz.sh

clean:
	rm -rf results
