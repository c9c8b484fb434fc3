# kvm-exitstat — build, test, bench, install.
#   make                 build ./kvm-exitstat and build/exitgen
#   make check           unit + end-to-end tests (e2e needs root and /dev/kvm)
#   make asan-check      the same under AddressSanitizer + UBSan (in build/asan)
#   make bench           issue 12's benchmarks: ratios against peers, not pass/fail (needs root)
#   make deps            install the Debian build dependencies
#   make install         PREFIX=/usr/local DESTDIR= (kvm-exitstat, kvm-exitgen, man pages, data)
#   make uninstall       the same variables: removes what install wrote
#   make dist            kvm-exitstat-VERSION.tar.gz of HEAD (VERSION from git describe)
#   make version         prints the version (tools/version.sh)
#   make lab [ISA=...]   boot Debian kernels under QEMU and run the tool on their KVM (tests/lab/)
#   V=1 shows commands; O=DIR puts objects elsewhere; WERROR=1 adds -Werror.
#   CROSS=aarch64-linux-gnu- SYSROOT=DIR  build for another architecture, against the
#                        libraries in DIR (tools/cross/sysroot.sh makes one; README)

CROSS   ?=
SYSROOT ?=
ifeq ($(origin CC),default)
CC      := $(if $(CROSS),$(CROSS)gcc,cc)
endif
O       ?= build
PREFIX  ?= /usr/local
DESTDIR ?=
PKGS    := libtraceevent libtracefs libtracecmd ncursesw libmicrohttpd json-c zlib libzstd

# With SYSROOT, pkg-config reads the foreign .pc files and prefixes their -I/-L
# paths with SYSROOT; headers without a -I of their own (ncurses.h) come after
# the cross compiler's own, and the linker finds the libraries' own
# dependencies (libzstd, libtinfo) there too. make 4.3 does not pass exported
# variables to $(shell), so they are set on the command.
TRIPLET := $(shell $(CC) -dumpmachine 2>/dev/null)
ifneq ($(SYSROOT),)
PKG_CONFIG ?= PKG_CONFIG_LIBDIR=$(SYSROOT)/usr/lib/$(TRIPLET)/pkgconfig:$(SYSROOT)/usr/share/pkgconfig \
	      PKG_CONFIG_SYSROOT_DIR=$(SYSROOT) pkg-config
override CPPFLAGS += -idirafter $(SYSROOT)/usr/include
override LDFLAGS  += -L$(SYSROOT)/usr/lib/$(TRIPLET) -L$(SYSROOT)/lib/$(TRIPLET) \
	    -Wl,-rpath-link,$(SYSROOT)/usr/lib/$(TRIPLET):$(SYSROOT)/lib/$(TRIPLET)
# A SYSROOT with a C library of its own (libc6-dev: riscv64's sysroot is Debian 13's,
# whose libraries need glibc 2.38 symbols that Debian 12's cross toolchain's 2.36 lacks)
# is built against: its headers instead of the cross toolchain's (only the compiler's
# own stddef.h & co. stay), its start files and libc.so first (-B), and --sysroot so
# that libc.so's /lib/... paths resolve inside it.
ifneq ($(wildcard $(SYSROOT)/usr/lib/$(TRIPLET)/crt1.o),)
SYSROOT_CFLAGS := --sysroot=$(SYSROOT) -nostdinc -isystem $(shell $(CC) -print-file-name=include) \
		  -isystem $(SYSROOT)/usr/include/$(TRIPLET) -isystem $(SYSROOT)/usr/include
override LDFLAGS  += --sysroot=$(SYSROOT) -B$(SYSROOT)/usr/lib/$(TRIPLET)/
endif
endif
PKG_CONFIG ?= pkg-config
AR      := $(if $(CROSS),$(CROSS)ar,ar)

CFLAGS  ?= -O2 -g
BASEFLAGS := $(SYSROOT_CFLAGS) -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wshadow -Wno-unused-parameter \
	     -Wformat=2 -Wno-format-nonliteral $(if $(WERROR),-Werror) -MMD -MP
# override: a CPPFLAGS, LDFLAGS or LDLIBS given on the command line (a packager's
# CPPFLAGS=-D_FORTIFY_SOURCE=2) is added to, not put in place of, what the
# build needs.
override CPPFLAGS += -Iinclude -Isrc $(shell $(PKG_CONFIG) --cflags $(PKGS))
# libmicrohttpd is opened by serve at run time (src/serve/mhd.c): compiled against, not linked
override LDLIBS  += $(shell $(PKG_CONFIG) --libs $(filter-out libmicrohttpd,$(PKGS))) -lcrypt -lm -lpthread -ldl

ifeq ($(V),1)
Q :=
else
Q := @
endif

SRCS      := $(sort $(wildcard src/*/*.c))
LIBOBJS   := $(SRCS:%.c=$(O)/%.o) $(O)/gen/exit_types_builtin.o $(O)/gen/version.o
TYPES     := $(sort $(wildcard exit_types/*.types exit_types/*.map))
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNITS     := $(UNIT_SRCS:tests/unit/%.c=$(O)/tests/%)
# ./kvm-exitstat for the default build; a build elsewhere (O=) keeps its binary there.
ifeq ($(O),build)
BIN       ?= kvm-exitstat
else
BIN       ?= $(O)/kvm-exitstat
endif
EXITGEN   := $(O)/exitgen

all: $(BIN) $(EXITGEN) $(UNITS)

$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(BASEFLAGS) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# The data files are embedded as text and parsed by the same code that reads a
# user's --exit-types file, so the two can never disagree.
$(O)/gen/exit_types_builtin.c: $(TYPES) tools/embed-exit-types.sh
	@mkdir -p $(dir $@)
	$(Q)sh tools/embed-exit-types.sh $(TYPES) > $@.tmp && mv $@.tmp $@

$(O)/gen/exit_types_builtin.o: $(O)/gen/exit_types_builtin.c
	$(Q)$(CC) $(BASEFLAGS) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# The version (tools/version.sh: a tarball's VERSION file, else git describe):
# version.c is rewritten only when the version changed, so a new commit
# relinks and a rebuild of the same tree does not.
KES_VERSION = $(shell sh tools/version.sh)
$(O)/gen/version.c: FORCE
	@mkdir -p $(dir $@)
	$(Q)printf '/* generated by make from tools/version.sh */\nconst char cli_version[] = "%s";\n' \
		'$(KES_VERSION)' > $@.tmp && { cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@; }

$(O)/gen/version.o: $(O)/gen/version.c
	$(Q)$(CC) $(BASEFLAGS) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

version:
	@echo $(KES_VERSION)

$(O)/libkes.a: $(LIBOBJS)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(BIN): $(O)/src/main.o $(O)/libkes.a
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(O)/src/main.o: src/main.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(BASEFLAGS) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# exitgen links the one guest of the compiler's target ISA (tools/exitgen/guest-<isa>.c).
EG_MACH   := $(firstword $(subst -, ,$(TRIPLET)))
EG_ISA    := $(or $(if $(filter x86_64 i%86,$(EG_MACH)),x86),$(if $(filter aarch64,$(EG_MACH)),arm64),$(if $(filter riscv64,$(EG_MACH)),riscv64),$(if $(filter powerpc64%,$(EG_MACH)),ppc64),unknown-$(EG_MACH))
EG_SRCS   := tools/exitgen/exitgen.c tools/exitgen/guest-$(EG_ISA).c

$(EXITGEN): $(EG_SRCS) tools/exitgen/exitgen.h
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $@ ($(EG_ISA) guest)")
	$(Q)$(CC) $(BASEFLAGS) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $(EG_SRCS) -lpthread

# What tests, fuzzers and test tools build their inputs with (tests/lib/):
# fixture builders live outside src/, since the tool never writes one.
TESTLIB_SRCS := $(sort $(wildcard tests/lib/*.c))
TESTLIB      := $(O)/tests/libkes-test.a
TEST_CPPFLAGS = -Itests -Itests/lib

$(O)/tests/lib/%.o: tests/lib/%.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(BASEFLAGS) $(CPPFLAGS) $(TEST_CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(TESTLIB): $(TESTLIB_SRCS:%.c=$(O)/%.o)
	$(Q)rm -f $@ && ar rcs $@ $^

$(O)/tests/%: tests/unit/%.c tests/harness.h $(TESTLIB) $(O)/libkes.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(BASEFLAGS) $(CPPFLAGS) $(TEST_CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(TESTLIB) $(O)/libkes.a $(LDLIBS)

check: all
	$(Q)O=$(O) KES=./$(BIN) EXITGEN=$(EXITGEN) sh tests/run.sh

asan-check:
	$(Q)LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	$(MAKE) O=$(O)/asan CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
		LDFLAGS="-fsanitize=address,undefined" check

# The README's main job: record the bundled workload, print its report.
# Without /dev/kvm it runs in the lab host (tools/demo.sh says so).
demo: all
	$(Q)O=$(O) KES=./$(BIN) EXITGEN=$(EXITGEN) sh tools/demo.sh

# The benchmarks' own helpers (tests/bench/): a precise rusage runner and the
# word-sum floor that report is measured against.
BENCH_TOOLS := $(O)/tests/bench/rusage $(O)/tests/bench/wordsum
$(O)/tests/bench/%: tests/bench/%.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(BASEFLAGS) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $<

$(O)/tests/bench/servesim: tests/bench/servesim.c $(O)/libkes.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(BASEFLAGS) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(O)/libkes.a $(LDLIBS)
BENCH_TOOLS += $(O)/tests/bench/servesim

bench: all $(BENCH_TOOLS)
	$(Q)O=$(O) KES=./$(BIN) EXITGEN=$(EXITGEN) sh tests/bench/run.sh

# An install killed halfway (a machine restarted mid-make deps) leaves dpkg
# "interrupted" (apt-get refuses everything until it is configured), or
# a package unpacked before what it depends on: -f completes the install.
deps:
	dpkg --configure -a >/dev/null 2>&1 || apt-get install -f -y -qq
	[ -n "$$(find /var/lib/apt/lists -name '*Packages*' -mmin -1440 2>/dev/null | head -n 1)" ] || \
		apt-get update -qq || echo "deps: apt-get update failed in part (a mirror mid-sync?): installing from the lists it has"
	apt-get install -y -qq --no-install-recommends make gcc clang pkg-config \
		libtraceevent-dev libtracefs-dev libtracecmd-dev libncurses-dev trace-cmd \
		linux-perf tmux valgrind libclang-rt-14-dev time bpftrace strace \
		libmicrohttpd-dev libjson-c-dev zlib1g-dev libzstd-dev prometheus curl python3 librsvg2-bin logrotate \
		bash-completion zsh \
		dpkg-dev debhelper lintian man-db systemd libcrypt-dev libelf-dev prometheus-node-exporter openssl \
		qemu-system-x86 cpio kmod

# Where make install puts things (GNU's names; a package: PREFIX=/usr,
# UNITDIR=/lib/systemd/system on Debian 12, whose units are not in /usr yet).
SYSCONFDIR  ?= /etc
BINDIR      ?= $(PREFIX)/bin
# exitgen is a test VMM, not a command for PATH: beside the tool's data
LIBEXECDIR  ?= $(PREFIX)/libexec/kvm-exitstat
DATADIR     ?= $(PREFIX)/share
MANDIR      ?= $(DATADIR)/man
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
ZSHCOMPDIR  ?= $(DATADIR)/zsh/site-functions
UNITDIR     ?= $(PREFIX)/lib/systemd/system
UNITS_IN    := $(wildcard contrib/systemd/*.service.in)
MANS1       := kvm-exitstat.1 $(wildcard man/*.1)
MANS5       := $(wildcard man/*.5)

# The pages and units as installed: the paths they name are this install's
# (the sources say the default PREFIX's, /usr/local), the version this build's.
INST_SED = sed -e 's|@BINDIR@|$(BINDIR)|g' \
	-e 's|/usr/local/share/kvm-exitstat|$(DATADIR)/kvm-exitstat|g' \
	-e 's|/usr/local/libexec/kvm-exitstat|$(LIBEXECDIR)|g' \
	-e 's|/usr/local/lib/systemd/system|$(UNITDIR)|g' \
	-e 's|/etc/default/kvm-exitstat|$(SYSCONFDIR)/default/kvm-exitstat|g' \
	-e 's|/etc/logrotate.d/kvm-exitstat|$(SYSCONFDIR)/logrotate.d/kvm-exitstat|g' \
	-e 's|"kvm-exitstat [0-9][^"]*"|"kvm-exitstat $(KES_VERSION)"|'

# Every file install writes, for uninstall (directories are left: others' too).
INSTALLED = $(BINDIR)/kvm-exitstat $(LIBEXECDIR)/kvm-exitgen \
	$(addprefix $(MANDIR)/man1/,$(notdir $(MANS1))) $(addprefix $(MANDIR)/man5/,$(notdir $(MANS5))) \
	$(addprefix $(DATADIR)/kvm-exitstat/exit_types/,$(notdir $(TYPES))) \
	$(BASHCOMPDIR)/kvm-exitstat $(ZSHCOMPDIR)/_kvm-exitstat \
	$(addprefix $(UNITDIR)/,$(notdir $(UNITS_IN:.in=))) \
	$(SYSCONFDIR)/logrotate.d/kvm-exitstat $(SYSCONFDIR)/default/kvm-exitstat

install: $(BIN) $(EXITGEN)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(DATADIR)/kvm-exitstat/exit_types \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) \
		$(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSCONFDIR)/logrotate.d $(DESTDIR)$(SYSCONFDIR)/default
	for f in $(UNITS_IN); do \
		$(INST_SED) $$f > $(DESTDIR)$(UNITDIR)/$$(basename $$f .in) && \
		chmod 644 $(DESTDIR)$(UNITDIR)/$$(basename $$f .in) || exit 1; \
	done
	for f in $(MANS1) $(MANS5); do \
		s=$$(echo $$f | sed 's/.*\.//'); \
		$(INST_SED) $$f > $(DESTDIR)$(MANDIR)/man$$s/$$(basename $$f) && \
		chmod 644 $(DESTDIR)$(MANDIR)/man$$s/$$(basename $$f) || exit 1; \
	done
	install -m 644 contrib/logrotate/kvm-exitstat $(DESTDIR)$(SYSCONFDIR)/logrotate.d/kvm-exitstat
	install -m 644 contrib/default/kvm-exitstat $(DESTDIR)$(SYSCONFDIR)/default/kvm-exitstat
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/kvm-exitstat
	install -m 755 $(EXITGEN) $(DESTDIR)$(LIBEXECDIR)/kvm-exitgen
	install -m 644 $(TYPES) $(DESTDIR)$(DATADIR)/kvm-exitstat/exit_types/
	install -m 644 completion/kvm-exitstat $(DESTDIR)$(BASHCOMPDIR)/kvm-exitstat
	install -m 644 completion/_kvm-exitstat $(DESTDIR)$(ZSHCOMPDIR)/_kvm-exitstat

# What install wrote, with the same variables; the directories it made and
# left empty go too (those others use stay).
uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	-rmdir $(DESTDIR)$(DATADIR)/kvm-exitstat/exit_types $(DESTDIR)$(DATADIR)/kvm-exitstat \
		$(DESTDIR)$(LIBEXECDIR) 2>/dev/null

# A source tarball of HEAD (what is committed) with its version in VERSION,
# which tools/version.sh reads where there is no .git:
# kvm-exitstat-VERSION.tar.gz here, or in DISTDIR.
DISTDIR ?= .
dist:
	@v=$$(sh tools/version.sh | sed 's/-dirty$$//'); d=$(O)/dist; \
	mkdir -p $$d && echo "$$v" > $$d/VERSION && \
	git archive --format=tar --prefix=kvm-exitstat-$$v/ --add-file=$$d/VERSION HEAD | \
		gzip -n -9 > $(DISTDIR)/kvm-exitstat-$$v.tar.gz && \
	echo "$(DISTDIR)/kvm-exitstat-$$v.tar.gz"

# The lab (tests/lab/README.md): Debian kernels under QEMU, our tool on their KVM.
#   make lab [ISA=x86-svm] [LAB_CACHE=DIR]   make lab-deps installs the host tools
LAB_ISAS = $(if $(ISA),$(foreach i,$(ISA),--isa $(i)))
lab: $(BIN) $(EXITGEN)
	$(Q)$(if $(LAB_CACHE),LAB_CACHE=$(LAB_CACHE)) sh tests/lab/lab.sh $(LAB_ISAS)

lab-deps:
	$(Q)sh tests/lab/deps.sh $(LAB_ISAS)

format:
	clang-format -i $$(git ls-files "src/*.[ch]" "include/*.h" "tools/*.c" "tests/*.[ch]")

clean:
	rm -rf $(O) $(BIN)

.PHONY: all check asan-check bench demo deps install uninstall dist version format clean lab lab-deps
# build/lab is the lab's cache (kernel trees hold files named *.d): not ours.
-include $(shell find $(O) -path $(O)/lab -prune -o -name '*.d' -type f -print 2>/dev/null)

# ---- collect: helper programs for the record tests (tests/tools/) ----
TOOLS := $(O)/tests/tools/mkdat $(O)/tests/tools/datcount $(O)/tests/tools/craftdat \
	 $(O)/tests/tools/swapper $(O)/tests/tools/statsfd-probe
all: $(TOOLS)
$(O)/tests/tools/%: tests/tools/%.c $(TESTLIB) $(O)/libkes.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(BASEFLAGS) $(CPPFLAGS) $(TEST_CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(TESTLIB) $(O)/libkes.a $(LDLIBS)
# ---- end collect ----

# ---- fuzz: libFuzzer targets for every input reader (tests/fuzz/, needs clang) ----
#   make fuzz FUZZ_SECONDS=N   builds them in $(O)/fuzzer and runs each for N s
#                              (FUZZ_JOBS at a time); non-zero on any crash/leak/UB;
#                              FUZZ_RUNS=N: at most N executions each as well
FUZZ_SECONDS ?= 60
FUZZ_JOBS    ?= 2
FUZZ_CC      ?= clang
FUZZ_O       := $(O)/fuzzer
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_BINS    := $(patsubst tests/fuzz/%.c,$(FUZZ_O)/%,$(sort $(wildcard tests/fuzz/fuzz_*.c)))

# The libraries once more, instrumented for coverage and the sanitizers.
$(FUZZ_O)/libkes.a $(FUZZ_O)/tests/libkes-test.a: FORCE
	$(Q)$(MAKE) --no-print-directory O=$(FUZZ_O) CC=$(FUZZ_CC) \
		CFLAGS="-O1 -g -fsanitize=fuzzer-no-link $(FUZZ_SAN)" $@

FUZZ_HDRS    := tests/fuzz/fuzz.h tests/fuzz/mutate.h tests/fuzz/pagewalk.h tests/tools/datfile.h

$(FUZZ_O)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_HDRS) $(FUZZ_O)/tests/libkes-test.a $(FUZZ_O)/libkes.a
	$(if $(Q),@echo "  FUZZ    $@")
	$(Q)$(FUZZ_CC) $(BASEFLAGS) $(CPPFLAGS) $(TEST_CPPFLAGS) -O1 -g -fsanitize=fuzzer $(FUZZ_SAN) \
		-Wl,--wrap=fork -o $@ $< $(FUZZ_O)/tests/libkes-test.a $(FUZZ_O)/libkes.a $(LDLIBS)

# The difference oracle (tests/fuzz/oracle.c): no libFuzzer, the same sanitizers.
$(FUZZ_O)/oracle: tests/fuzz/oracle.c $(FUZZ_HDRS) $(FUZZ_O)/tests/libkes-test.a $(FUZZ_O)/libkes.a
	$(if $(Q),@echo "  FUZZ    $@")
	$(Q)$(FUZZ_CC) $(BASEFLAGS) $(CPPFLAGS) $(TEST_CPPFLAGS) -O1 -g -fsanitize=fuzzer-no-link $(FUZZ_SAN) \
		-Wl,--wrap=fork -o $@ $< $(FUZZ_O)/tests/libkes-test.a $(FUZZ_O)/libkes.a $(LDLIBS)

fuzz-build: $(FUZZ_BINS) $(FUZZ_O)/oracle $(O)/tests/tools/mkdat

fuzz: fuzz-build
	$(Q)FUZZ_O=$(FUZZ_O) FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_JOBS=$(FUZZ_JOBS) FUZZ_RUNS=$(FUZZ_RUNS) \
		MKDAT=$(O)/tests/tools/mkdat sh tests/fuzz/run.sh $(FUZZ_BINS)

FORCE:
.PHONY: fuzz fuzz-build FORCE
# ---- end fuzz ----
