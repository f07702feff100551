# tric: one plain Makefile. `make` builds build/tric, build/libtric.a and
# build/libtric.so with the C toolchain alone (cuda.h is not needed: the
# driver is opened at run time). `make test` builds an ASan+UBSan copy under
# build-test/ and runs test/run.sh. `make install PREFIX=... [DESTDIR=...]`
# installs the command, the libraries, tric.h, tric.pc, tric.mk and the
# CMake package.

CC      ?= cc
CFLAGS  ?= -O2 -g
WARN     = -std=c11 -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes \
           -Wno-unused-parameter -D_GNU_SOURCE
DEPFLAGS = -MMD -MP
LIBS     = -ldl -lm

LIB_DIRS = base ir frontend opt ptxgen runtime interp sim
LIB_SRC  = $(foreach d,$(LIB_DIRS),$(sort $(wildcard $(d)/*.c)))

VERSION := $(shell sed -n 's/^\#define TRIC_VERSION "\(.*\)"/\1/p' base/base.h)
MAJOR   := $(firstword $(subst ., ,$(VERSION)))

B  = build
BT = build-test
BF = build-fuzz
LIB_OBJ  = $(LIB_SRC:%.c=$(B)/%.o)
TLIB_OBJ = $(LIB_SRC:%.c=$(BT)/%.o)
TEST_SAN = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

UNIT_SRC = $(sort $(wildcard test/unit/*.c))
UNIT_BIN = $(UNIT_SRC:test/unit/%.c=$(BT)/unit/%)

all: $(B)/tric $(B)/libtric.a $(B)/libtric.so

# Hidden visibility: the libraries export tric.h's functions (TRIC_API)
# and nothing else, so their internals (arena_alloc, buf_*, ir_*, ...)
# cannot clash with a program's own names. The command and the tests link
# the objects themselves.
$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CPPFLAGS) $(WARN) $(DEPFLAGS) -fPIC -fvisibility=hidden -c $< -o $@

# one relocatable object with every hidden symbol made local
$(B)/libtric.a: $(LIB_OBJ)
	rm -f $@ $(B)/libtric.o
	$(LD) -r -o $(B)/libtric.o $^
	objcopy --localize-hidden $(B)/libtric.o
	ar rcs $@ $(B)/libtric.o

$(B)/libtric.so: $(LIB_OBJ)
	$(CC) -shared -Wl,-soname,libtric.so.$(MAJOR) -o $@ $^ $(LIBS) -lpthread

$(B)/tric: $(B)/tric.o $(LIB_OBJ)
	$(CC) -o $@ $^ $(LIBS) -lpthread

# the launchers' support code that `tric --emit c` writes into every file,
# as a C string literal
GEN = $(B)/gen
$(GEN)/aot_launch.inc: runtime/aot_launch.c.in
	@mkdir -p $(dir $@)
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $< > $@
$(B)/runtime/aot.o $(BT)/runtime/aot.o $(BF)/runtime/aot.o: $(GEN)/aot_launch.inc
$(B)/runtime/aot.o $(BT)/runtime/aot.o $(BF)/runtime/aot.o: CPPFLAGS += -I$(GEN)

# the test build: sanitizers, IR verification after every pass
$(BT)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g $(CPPFLAGS) $(WARN) $(DEPFLAGS) $(TEST_SAN) -DTRIC_TEST=1 -c $< -o $@

$(BT)/libtric.a: $(TLIB_OBJ)
	rm -f $@
	ar rcs $@ $^

$(BT)/tric: $(BT)/tric.o $(BT)/libtric.a
	$(CC) $(TEST_SAN) -o $@ $^ $(LIBS)

$(BT)/unit/%: test/unit/%.c $(wildcard test/unit/*.h) $(BT)/libtric.a
	@mkdir -p $(dir $@)
	$(CC) -O1 -g $(WARN) $(TEST_SAN) -DTRIC_TEST=1 -I. -o $@ $< $(BT)/libtric.a $(LIBS)

# a libcuda.so.1 whose launches run on the PTX simulator, for the test of
# what `tric --emit c` writes (test/aot)
$(BT)/aot/libcuda.so.1: test/aot/fake_cuda.c $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -O1 -g $(WARN) -fPIC -shared -I. -o $@ $< $(LIB_OBJ) $(LIBS) -lpthread

# the fuzz targets without libFuzzer: a main() that replays inputs
# (test/fuzz/README), and the program that makes the cache seeds
FUZZ_TARGETS = compile ir signature args cache
FUZZ_SRC     = test/fuzz/targets
FUZZ_REPLAY  = $(FUZZ_TARGETS:%=$(BT)/fuzz/replay_%)
$(BT)/fuzz/replay_%: $(FUZZ_SRC)/fuzz_%.c $(FUZZ_SRC)/replay.c $(FUZZ_SRC)/fuzz.h $(BT)/libtric.a
	@mkdir -p $(dir $@)
	$(CC) -O1 -g $(WARN) $(TEST_SAN) -DTRIC_TEST=1 -I. -o $@ $< $(FUZZ_SRC)/replay.c $(BT)/libtric.a $(LIBS)
$(BT)/fuzz/cache_seeds: $(FUZZ_SRC)/cache_seeds.c $(BT)/libtric.a
	@mkdir -p $(dir $@)
	$(CC) -O1 -g $(WARN) $(TEST_SAN) -DTRIC_TEST=1 -I. -o $@ $< $(BT)/libtric.a $(LIBS)

test: $(BT)/tric $(UNIT_BIN) $(BT)/aot/libcuda.so.1 $(FUZZ_REPLAY) $(BT)/fuzz/cache_seeds all
	@sh test/run.sh

# the fast part of `make test` for the edit-compile loop: unit tests but
# the slow ones, and the golden tests (no ptxas, install or python)
check: $(BT)/tric $(UNIT_BIN)
	@QUICK=1 sh test/run.sh

# regenerate expected outputs of golden tests (deliberate changes only)
accept: $(BT)/tric
	@ACCEPT=1 sh test/run.sh

$(B)/driver_smoke: test/gpu/driver_smoke.c $(LIB_OBJ)
	$(CC) $(CFLAGS) $(WARN) -I. -o $@ $^ $(LIBS) -lpthread

# `tric --emit c` on the GPU: a matmul launcher over two specializations
CUDA_HOME ?= /usr/local/cuda
AOT_MM_SIGS = \
  -s '*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1, 128, 128, 64, 8, "", "tf32"' \
  -s '*fp16, *fp16, *fp16, i32, i32, i32, i32, i32, i32, i32, i32, i32, 128, 128, 64, 8, "", "tf32"'
$(GEN)/aot_matmul.tric.c: kernels/matmul.py $(B)/tric
	@mkdir -p $(dir $@)
	$(B)/tric kernels/matmul.py --emit c -k matmul_kernel $(AOT_MM_SIGS) --num-warps 8 --arch sm_80 --arch sm_90a \
		-o $(GEN)/aot_matmul.tric
$(B)/aot_matmul: test/gpu/aot_matmul.c $(GEN)/aot_matmul.tric.c
	$(CC) $(CFLAGS) -I$(CUDA_HOME)/include -I$(GEN) -o $@ $^ -L$(CUDA_HOME)/lib64/stubs -lcuda -ldl -lpthread -lm

gpu-test: all $(B)/driver_smoke $(B)/aot_matmul
	$(B)/driver_smoke
	$(B)/aot_matmul
	$(MAKE) -C examples/aot run && $(MAKE) -C examples/aot clean
	python3 test/gpu/run_kernels.py
	TRIC_ARCH=sm_80 python3 test/gpu/run_kernels.py
	TRIC_LIBRARY=$(B)/libtric.so python3 test/gpu/test_python.py
	TRIC_LIBRARY=$(B)/libtric.so python3 test/gpu/test_debug.py
	TRIC_LIBRARY=$(B)/libtric.so python3 test/gpu/test_dot.py

# random kernels for as long as asked (FUZZ_SECONDS, default 60); each one
# that fails is saved under test/fuzz/ and runs in every `make test` after
fuzz: $(BT)/unit/test_kernelgen
	$(BT)/unit/test_kernelgen --seconds $(or $(FUZZ_SECONDS),60) --save test/fuzz

# coverage-guided fuzzing of the library with libFuzzer (clang): the
# targets of test/fuzz/targets, built under build-fuzz/ with ASan+UBSan,
# each run for FUZZ_SECONDS (default 10) on one core from its corpus
# (build-fuzz/corpus/T, kept between runs), the seeds made from the tree
# and the saved inputs of test/fuzz/T/. Crashes go to build-fuzz/artifacts/T/.
FUZZ_CC  ?= clang
FUZZ_SAN  = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FLIB_OBJ  = $(LIB_SRC:%.c=$(BF)/%.o)
FUZZ_BIN  = $(FUZZ_TARGETS:%=$(BF)/fuzz_%)
FUZZ_FLAGS ?= -max_len=16384 -timeout=10 -rss_limit_mb=2048

$(BF)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -O1 -g $(CPPFLAGS) $(WARN) $(DEPFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link -DTRIC_TEST=1 -c $< -o $@

$(BF)/libtric.a: $(FLIB_OBJ)
	rm -f $@
	ar rcs $@ $^

$(BF)/fuzz_%: $(FUZZ_SRC)/fuzz_%.c $(FUZZ_SRC)/fuzz.h $(BF)/libtric.a
	$(FUZZ_CC) -O1 -g $(WARN) $(FUZZ_SAN) -fsanitize=fuzzer -DTRIC_TEST=1 -I. -o $@ $< $(BF)/libtric.a $(LIBS)

fuzz-lib: $(FUZZ_BIN) $(BT)/fuzz/cache_seeds
	sh test/fuzz/seeds.sh $(BF)/seeds $(BT)/fuzz/cache_seeds
	@status=0; for t in $(FUZZ_TARGETS); do \
		mkdir -p $(BF)/corpus/$$t $(BF)/artifacts/$$t; \
		saved=; [ -d test/fuzz/$$t ] && saved=test/fuzz/$$t; \
		echo "== fuzz_$$t for $(or $(FUZZ_SECONDS),10) s"; \
		nice $(BF)/fuzz_$$t $(FUZZ_FLAGS) -max_total_time=$(or $(FUZZ_SECONDS),10) -print_final_stats=1 \
			-artifact_prefix=$(BF)/artifacts/$$t/ -dict=$(BF)/seeds/$$t.dict $(BF)/corpus/$$t $(BF)/seeds/$$t $$saved || status=1; \
	done; exit $$status

bench: all
	python3 bench/bench.py

# every kernel through tric and Triton side by side, and the launch overhead
bench-all: all
	TRIC_LIBRARY=$(B)/libtric.so python3 bench/side_by_side.py
	TRIC_LIBRARY=$(B)/libtric.so python3 bench/launch_overhead.py

demo: all
	@sh test/demo.sh

# ---- install ----
PREFIX  ?= /usr/local
BINDIR   = $(PREFIX)/bin
LIBDIR   = $(PREFIX)/lib
INCDIR   = $(PREFIX)/include
DATADIR  = $(PREFIX)/share/tric
PCDIR    = $(LIBDIR)/pkgconfig
CMAKEDIR = $(LIBDIR)/cmake/tric

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCDIR) $(DESTDIR)$(DATADIR) \
		$(DESTDIR)$(PCDIR) $(DESTDIR)$(CMAKEDIR)
	install -m 755 $(B)/tric $(DESTDIR)$(BINDIR)/tric
	install -m 644 $(B)/libtric.a $(DESTDIR)$(LIBDIR)/libtric.a
	install -m 755 $(B)/libtric.so $(DESTDIR)$(LIBDIR)/libtric.so.$(VERSION)
	ln -sf libtric.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libtric.so.$(MAJOR)
	ln -sf libtric.so.$(MAJOR) $(DESTDIR)$(LIBDIR)/libtric.so
	install -m 644 runtime/tric.h $(DESTDIR)$(INCDIR)/tric.h
	install -m 644 share/tric.mk $(DESTDIR)$(DATADIR)/tric.mk
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' share/tric.pc.in > $(DESTDIR)$(PCDIR)/tric.pc
	install -m 644 share/TricConfig.cmake $(DESTDIR)$(CMAKEDIR)/TricConfig.cmake

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/tric $(DESTDIR)$(LIBDIR)/libtric.a $(DESTDIR)$(LIBDIR)/libtric.so \
		$(DESTDIR)$(LIBDIR)/libtric.so.$(MAJOR) $(DESTDIR)$(LIBDIR)/libtric.so.$(VERSION) \
		$(DESTDIR)$(INCDIR)/tric.h $(DESTDIR)$(DATADIR)/tric.mk $(DESTDIR)$(PCDIR)/tric.pc \
		$(DESTDIR)$(CMAKEDIR)/TricConfig.cmake

wc:
	@for d in $(LIB_DIRS) test; do printf '%-10s %6s\n' $$d "$$(cat $$d/*.[ch] $$d/*/*.[ch] 2>/dev/null | wc -l)"; done

clean:
	rm -rf $(B) $(BT) $(BF)

.PHONY: all test check accept gpu-test fuzz fuzz-lib bench bench-all demo wc clean install uninstall

-include $(LIB_OBJ:.o=.d) $(TLIB_OBJ:.o=.d) $(FLIB_OBJ:.o=.d) $(B)/tric.d $(BT)/tric.d
