# kvm-exitstat — build, test, bench, install.
#   make                 build ./kvm-exitstat and build/exitgen
#   make check           unit + end-to-end tests (e2e needs root and /dev/kvm)
#   make asan-check      the same under AddressSanitizer + UBSan (in build/asan)
#   make bench           benchmarks (numbers, not pass/fail)
#   make deps            install the Debian build dependencies
#   make install         PREFIX=/usr/local DESTDIR=
#   V=1 shows commands; O=DIR puts objects elsewhere; WERROR=1 adds -Werror.

CC      ?= cc
O       ?= build
PREFIX  ?= /usr/local
DESTDIR ?=
PKGS    := libtraceevent libtracefs libtracecmd ncursesw

CFLAGS  ?= -O2 -g
BASEFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wshadow -Wno-unused-parameter \
	     -Wformat=2 -Wno-format-nonliteral $(if $(WERROR),-Werror) -MMD -MP
CPPFLAGS += -Iinclude -Isrc $(shell pkg-config --cflags $(PKGS))
LDLIBS  += $(shell pkg-config --libs $(PKGS)) -lm -lpthread

ifeq ($(V),1)
Q :=
else
Q := @
endif

SRCS      := $(sort $(wildcard src/*/*.c))
LIBOBJS   := $(SRCS:%.c=$(O)/%.o) $(O)/gen/exit_types_builtin.o
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

$(O)/libkes.a: $(LIBOBJS)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BIN): $(O)/src/main.o $(O)/libkes.a
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(O)/src/main.o: src/main.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(BASEFLAGS) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(EXITGEN): tools/exitgen/exitgen.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(BASEFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< -lpthread

$(O)/tests/%: tests/unit/%.c tests/harness.h $(O)/libkes.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(BASEFLAGS) $(CPPFLAGS) -Itests $(CFLAGS) $(LDFLAGS) -o $@ $< $(O)/libkes.a $(LDLIBS)

check: all
	$(Q)O=$(O) KES=./$(BIN) EXITGEN=$(EXITGEN) sh tests/run.sh

asan-check:
	$(Q)LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	$(MAKE) O=$(O)/asan CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
		LDFLAGS="-fsanitize=address,undefined" check

# The README's main job: record the bundled workload, print its report.
demo: all
	$(Q)mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
	./$(BIN) record -o $(O)/demo.dat -- $(EXITGEN) --io 10000 --mmio 5000 --hlt 1000 --vcpus 2
	./$(BIN) report -i $(O)/demo.dat

bench: all
	$(Q)O=$(O) sh tests/bench/run.sh

deps:
	[ -n "$$(find /var/lib/apt/lists -name '*Packages*' -mmin -1440 2>/dev/null | head -n 1)" ] || apt-get update -qq
	apt-get install -y -qq --no-install-recommends make gcc clang pkg-config \
		libtraceevent-dev libtracefs-dev libtracecmd-dev libncurses-dev trace-cmd \
		linux-perf tmux valgrind libclang-rt-14-dev time

install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/man/man5 $(DESTDIR)$(PREFIX)/share/kvm-exitstat/exit_types
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/kvm-exitstat
	install -m 644 kvm-exitstat.1 $(wildcard man/*.1) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 $(wildcard man/*.5) $(DESTDIR)$(PREFIX)/share/man/man5/
	install -m 644 $(TYPES) $(DESTDIR)$(PREFIX)/share/kvm-exitstat/exit_types/

format:
	clang-format -i $$(git ls-files "src/*.[ch]" "include/*.h" "tools/*.c" "tests/*.[ch]")

clean:
	rm -rf $(O) $(BIN)

.PHONY: all check asan-check bench demo deps install format clean
-include $(shell find $(O) -name '*.d' 2>/dev/null)

# ---- collect: helper programs for the record tests (tests/tools/) ----
TOOLS := $(O)/tests/tools/mkdat $(O)/tests/tools/datcount
all: $(TOOLS)
$(O)/tests/tools/%: tests/tools/%.c $(O)/libkes.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(BASEFLAGS) $(CPPFLAGS) -Itests $(CFLAGS) $(LDFLAGS) -o $@ $< $(O)/libkes.a $(LDLIBS)
# ---- end collect ----

# ---- fuzz: libFuzzer targets for every input reader (tests/fuzz/, needs clang) ----
#   make fuzz FUZZ_SECONDS=N   builds them in $(O)/fuzzer and runs each for N s
#                              (FUZZ_JOBS at a time); non-zero on any crash/leak/UB
FUZZ_SECONDS ?= 60
FUZZ_JOBS    ?= 2
FUZZ_CC      ?= clang
FUZZ_O       := $(O)/fuzzer
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_BINS    := $(patsubst tests/fuzz/%.c,$(FUZZ_O)/%,$(sort $(wildcard tests/fuzz/fuzz_*.c)))

# The library once more, instrumented for coverage and the sanitizers.
$(FUZZ_O)/libkes.a: FORCE
	$(Q)$(MAKE) --no-print-directory O=$(FUZZ_O) CC=$(FUZZ_CC) \
		CFLAGS="-O1 -g -fsanitize=fuzzer-no-link $(FUZZ_SAN)" $@

$(FUZZ_O)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_O)/libkes.a
	$(if $(Q),@echo "  FUZZ    $@")
	$(Q)$(FUZZ_CC) $(BASEFLAGS) $(CPPFLAGS) -O1 -g -fsanitize=fuzzer $(FUZZ_SAN) \
		-Wl,--wrap=fork -o $@ $< $(FUZZ_O)/libkes.a $(LDLIBS)

fuzz-build: $(FUZZ_BINS) $(O)/tests/tools/mkdat

fuzz: fuzz-build
	$(Q)FUZZ_O=$(FUZZ_O) FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_JOBS=$(FUZZ_JOBS) \
		MKDAT=$(O)/tests/tools/mkdat sh tests/fuzz/run.sh $(FUZZ_BINS)

FORCE:
.PHONY: fuzz fuzz-build FORCE
# ---- end fuzz ----
