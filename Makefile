# timerconv — move Linux kernel code off the pre-4.15 timer API.
#
#   make            build build/timerconv
#   make SANITIZE=1 build build-san/timerconv with ASan and UBSan
#   make demo       install what is missing, build, run on the sample tree
#   make test       install what is missing, build, run the C unit tests
#                   and the test suite on the sanitized build, then the
#                   fuzz regressions
#   make unit       only the C unit tests (tests/unit/, HACKING.md)
#   make fuzz       run every fuzz target for FUZZ_SECONDS (default 60)
#                   and the long whole-program mutation test
#   make fuzz-ci    every fuzz regression input, then each target ~20 s
#   make bench      benchmark on linux-source-6.12 (downloads the package,
#                   builds the old-API workload once; BENCH_ARGS="--only
#                   check --runs 3" passes options to tests/bench/bench.py)
#   make corpus     convert ../shared/corpus (real driver files) by default
#                   and with --keep-data, each on a fresh copy: the sites
#                   converted, a lint, and a build of every changed .c file
#                   before and after with linux 4.14's kbuild, of a copy
#                   converted with --target v4.14 (about 2.5 minutes;
#                   CORPUS_ARGS="--no-build --mode keep-data" passes
#                   options to tests/bench/corpus.py)
#   make man        the manual pages (help2man, from each command's --help)
#   make install    install to $(PREFIX) (default /usr/local): the program,
#                   the rules, the manual pages, the bash completion
#   make uninstall  remove what make install installed

PREFIX   ?= /usr/local
BINDIR   ?= $(PREFIX)/bin
DATADIR  ?= $(PREFIX)/share/timerconv
MANDIR   ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
HELP2MAN ?= help2man
CC       ?= gcc
PYTHON   ?= /usr/bin/python3
PKGS     := glib-2.0 gio-2.0 json-glib-1.0

# Debian packages the build, the tests and the demo need.
DEB_PKGS := coccinelle python3-pytest libglib2.0-dev libjson-glib-dev \
	    pkg-config gcc make git diffutils clang libclang-rt-14-dev \
	    flex bison bc libelf-dev libssl-dev xz-utils help2man

CFLAGS   ?= -O2 -g
WARN     := -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
	    -Wshadow -Wstrict-prototypes -Wmissing-prototypes
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) \
	     -DTIMERCONV_DATADIR='"$(DATADIR)"' \
	     $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)

# A sanitized build lives apart, so both can be built side by side.
ifeq ($(SANITIZE),1)
BUILD    := build-san
SAN      := -fsanitize=address,undefined -fno-sanitize-recover=all \
	    -fno-omit-frame-pointer
ALL_CFLAGS += $(SAN)
LDFLAGS  += $(SAN)
else
BUILD    := build
endif

# tool/ holds one folder a stage (tool/README.md): every source file has
# a unique name, so the objects of all of them share one directory.
STAGES := lib scan facts plan rewrite build cmd
SRCS := $(sort $(foreach d,$(STAGES),$(wildcard tool/$(d)/*.c)))
OBJS := $(patsubst %.c,$(BUILD)/%.o,$(notdir $(SRCS)))
DEPS := $(OBJS:.o=.d)
ALL_CFLAGS += $(STAGES:%=-Itool/%)
vpath %.c $(STAGES:%=tool/%)

.PHONY: all demo test unit unit-build bench corpus install uninstall man deps \
	clean fuzz fuzz-ci fuzz-build

# The manual pages come with the plain build, when help2man is there.
ifneq ($(SANITIZE),1)
ifneq ($(shell command -v $(HELP2MAN) 2>/dev/null),)
all: man
endif
endif
all: $(BUILD)/timerconv

$(BUILD)/timerconv: $(OBJS)
	$(CC) $(LDFLAGS) -o $@ $(OBJS) $(LDLIBS)

$(BUILD)/%.o: %.c | $(BUILD)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD):
	mkdir -p $@

-include $(DEPS)

# C unit tests (tests/unit/test_*.c, GLib's gtest), each a program linked
# against the tool's objects but main.o.  `make unit` builds and runs them
# with the sanitizers (build-san/unit/); G_TEST_SRCDIR tells them where
# the sources are (the tests read cocci/ and tool/).
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/unit/%,$(UNIT_SRCS))
LIB       := $(BUILD)/libtimerconv.a

$(LIB): $(filter-out $(BUILD)/main.o,$(OBJS))
	rm -f $@
	ar rcs $@ $^

$(BUILD)/unit/%: tests/unit/%.c tests/unit/unit.h $(LIB) | $(BUILD)/unit
	$(CC) $(ALL_CFLAGS) -Itests/unit -DUNIT_PYTHON='"$(PYTHON)"' \
		-MMD -MP -o $@ $< $(LDFLAGS) $(LIB) $(LDLIBS)

$(BUILD)/unit:
	mkdir -p $@

-include $(wildcard $(BUILD)/unit/*.d)

unit-build: $(UNIT_BINS)

# Every test program runs, then the target fails if one did.
unit:
	$(MAKE) SANITIZE=1 unit-build
	@test -n "$(UNIT_SRCS)" || { echo "make unit: no tests" >&2; exit 1; }
	@failed=""; for t in $(patsubst tests/unit/%.c,build-san/unit/%,$(UNIT_SRCS)); do \
		G_TEST_SRCDIR=$(CURDIR) G_SLICE=always-malloc \
		G_DEBUG=gc-friendly \
		LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
			$$t -q || failed="$$failed $${t##*/}"; \
	done; \
	if [ -n "$$failed" ]; then \
		echo "make unit: failed:$$failed" >&2; exit 1; \
	fi; \
	echo "make unit: $(words $(UNIT_SRCS)) test programs passed"

# libFuzzer targets (fuzz/fuzz_*.c), linked against the tool's objects
# built with coverage and the sanitizers (all but main.c).
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_MUTANTS ?= 300
FUZZ_BUILD   := build-fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all \
		-fno-omit-frame-pointer
FUZZ_CFLAGS   = -std=c11 -D_GNU_SOURCE $(WARN) -O1 -g $(FUZZ_SAN) \
		-DTIMERCONV_DATADIR='"$(DATADIR)"' $(STAGES:%=-Itool/%) \
		$(shell pkg-config --cflags $(PKGS) 2>/dev/null)
FUZZ_TARGETS := lexer scan structs ppcond blank facts maintainers baseline diff \
		respace plan names kbuild
FUZZ_OBJS    := $(patsubst %.c,$(FUZZ_BUILD)/%.o, \
			  $(notdir $(filter-out tool/cmd/main.c,$(SRCS))))
FUZZ_LIB     := $(FUZZ_BUILD)/libtimerconv.a
FUZZ_BINS    := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)

fuzz-build: $(FUZZ_BINS)

$(FUZZ_BUILD)/%.o: %.c | $(FUZZ_BUILD)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c \
		-o $@ $<

$(FUZZ_LIB): $(FUZZ_OBJS)
	rm -f $@
	ar rcs $@ $(FUZZ_OBJS)

$(FUZZ_BUILD)/fuzz_%: fuzz/fuzz_%.c fuzz/fuzz.h $(FUZZ_LIB)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -MMD -MP -o $@ $< \
		$(FUZZ_LIB) $(LDLIBS)

$(FUZZ_BUILD):
	mkdir -p $@

-include $(wildcard $(FUZZ_BUILD)/*.d)

# Long runs: every target for FUZZ_SECONDS, then the mutation test with
# FUZZ_MUTANTS mutants on the sanitized binary.
fuzz: deps
	$(MAKE) fuzz-build
	$(MAKE) SANITIZE=1 all
	$(PYTHON) fuzz/run.py --seconds $(FUZZ_SECONDS)
	TIMERCONV_BIN=$(CURDIR)/build-san/timerconv \
	TIMERCONV_MUTANTS=$(FUZZ_MUTANTS) \
		$(PYTHON) -m pytest -q tests/test_mutation.py

# CI: the saved regression inputs, then each target briefly.
fuzz-ci:
	$(MAKE) fuzz-build
	$(PYTHON) fuzz/run.py --ci

# Install what is missing (Debian, as root); a no-op when all is there.
deps:
	@missing=""; for p in $(DEB_PKGS); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | \
			grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "Installing:$$missing"; \
		if [ "$$(id -u)" != 0 ]; then SUDO=sudo; else SUDO=; fi; \
		$$SUDO apt-get update -q && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q \
			--no-install-recommends $$missing; \
	fi

demo: deps
	$(MAKE) all
	./tests/demo.sh

# The suite runs on the sanitized build: a crash, an ASan or UBSan report
# or a leak in any test fails it (tests/conftest.py).
test: deps
	$(MAKE) all
	$(MAKE) SANITIZE=1 all
	$(MAKE) unit
	@TIMERCONV_BIN=$(CURDIR)/build-san/timerconv \
		$(PYTHON) -m pytest -q tests; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "make test: no tests collected" >&2; fi; \
	exit $$rc
	$(MAKE) fuzz-ci

bench: deps
	$(MAKE) all
	./tests/bench/bench.sh $(BENCH_ARGS)

# Both modes, then a line each: converted/sites.  Exit 1 on a lint error
# or a file that built before and not after, 2 on a crash or a time-out.
corpus: deps
	$(MAKE) all
	$(PYTHON) tests/bench/corpus.py $(CORPUS_ARGS)

# Manual pages: timerconv(1) from `timerconv --help`, and one a command
# (timerconv-convert(1), ...) from `timerconv COMMAND --help`, as git
# names its own.  In the C locale, so that they are ASCII.
MAN_CMDS := convert series check
MANPAGES := build/man/timerconv.1 $(MAN_CMDS:%=build/man/timerconv-%.1)
MAN_NAME_convert := convert kernel timers off the pre-4.15 API
MAN_NAME_series  := write the timer conversion as git format-patch series
MAN_NAME_check   := report code that uses the old timer API (a CI gate)

man: $(MANPAGES)

build/man:
	mkdir -p $@

build/man/timerconv.1: build/timerconv dist/timerconv.h2m | build/man
	LC_ALL=C $(HELP2MAN) --no-info --include=dist/timerconv.h2m \
		--name="move Linux kernel code off the pre-4.15 timer API" \
		--output=$@ ./build/timerconv

build/man/timerconv-%.1: build/timerconv | build/man
	LC_ALL=C $(HELP2MAN) --no-info --help-option="$* --help" \
		--version-option="$* --version" --name="$(MAN_NAME_$*)" \
		./build/timerconv | \
		sed -e 's/^\.TH TIMERCONV /.TH TIMERCONV-$(shell echo $* | \
			tr a-z A-Z) /' \
		    -e 's/^timerconv \\- /timerconv-$* \\- /' > $@.tmp
	mv $@.tmp $@

install: build/timerconv man
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR)
	install -m 755 build/timerconv $(DESTDIR)$(BINDIR)/timerconv
	install -m 644 cocci/*.cocci cocci/*.py cocci/*.h $(DESTDIR)$(DATADIR)/
	install -m 644 $(MANPAGES) $(DESTDIR)$(MANDIR)/man1/
	install -m 644 dist/timerconv.bash $(DESTDIR)$(BASHCOMPDIR)/timerconv

# Only what install put there: DATADIR may be shared.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/timerconv
	rm -f $(addprefix $(DESTDIR)$(DATADIR)/,$(notdir \
		$(wildcard cocci/*.cocci cocci/*.py cocci/*.h)))
	rm -rf $(DESTDIR)$(DATADIR)/__pycache__
	-rmdir $(DESTDIR)$(DATADIR) 2>/dev/null
	rm -f $(MANPAGES:build/man/%=$(DESTDIR)$(MANDIR)/man1/%)
	rm -f $(DESTDIR)$(BASHCOMPDIR)/timerconv

clean:
	rm -rf build build-san $(FUZZ_BUILD)
