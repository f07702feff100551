# tric: one plain Makefile. `make` builds build/tric, build/libtric.a and
# build/libtric.so with the C toolchain alone (cuda.h is not needed: the
# driver is opened at run time). `make test` builds an ASan+UBSan copy under
# build-test/ and runs test/run.sh.

CC      ?= cc
CFLAGS  ?= -O2 -g
WARN     = -std=c11 -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes \
           -Wno-unused-parameter -D_GNU_SOURCE
DEPFLAGS = -MMD -MP
LIBS     = -ldl -lm

LIB_DIRS = base ir frontend opt ptxgen runtime interp sim
LIB_SRC  = $(foreach d,$(LIB_DIRS),$(sort $(wildcard $(d)/*.c)))

B  = build
BT = build-test
LIB_OBJ  = $(LIB_SRC:%.c=$(B)/%.o)
TLIB_OBJ = $(LIB_SRC:%.c=$(BT)/%.o)
TEST_SAN = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

UNIT_SRC = $(sort $(wildcard test/unit/*.c))
UNIT_BIN = $(UNIT_SRC:test/unit/%.c=$(BT)/unit/%)

all: $(B)/tric $(B)/libtric.a $(B)/libtric.so

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CPPFLAGS) $(WARN) $(DEPFLAGS) -fPIC -c $< -o $@

$(B)/libtric.a: $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

$(B)/libtric.so: $(LIB_OBJ)
	$(CC) -shared -o $@ $^ $(LIBS)

$(B)/tric: $(B)/tric.o $(B)/libtric.a
	$(CC) -o $@ $^ $(LIBS)

# the launchers' support code that `tric --emit c` writes into every file,
# as a C string literal
GEN = $(B)/gen
$(GEN)/aot_launch.inc: runtime/aot_launch.c.in
	@mkdir -p $(dir $@)
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $< > $@
$(B)/runtime/aot.o $(BT)/runtime/aot.o: $(GEN)/aot_launch.inc
$(B)/runtime/aot.o $(BT)/runtime/aot.o: CPPFLAGS += -I$(GEN)

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

test: $(BT)/tric $(UNIT_BIN) $(BT)/aot/libcuda.so.1 all
	@sh test/run.sh

# regenerate expected outputs of golden tests (deliberate changes only)
accept: $(BT)/tric
	@ACCEPT=1 sh test/run.sh

$(B)/driver_smoke: test/gpu/driver_smoke.c $(B)/libtric.a
	$(CC) $(CFLAGS) $(WARN) -I. -o $@ $^ $(LIBS) -lpthread

gpu-test: all $(B)/driver_smoke
	$(B)/driver_smoke
	python3 test/gpu/run_kernels.py
	TRIC_ARCH=sm_80 python3 test/gpu/run_kernels.py
	TRIC_LIBRARY=$(B)/libtric.so python3 test/gpu/test_python.py
	TRIC_LIBRARY=$(B)/libtric.so python3 test/gpu/test_debug.py
	TRIC_LIBRARY=$(B)/libtric.so python3 test/gpu/test_dot.py

# random kernels for as long as asked (FUZZ_SECONDS, default 60); each one
# that fails is saved under test/fuzz/ and runs in every `make test` after
fuzz: $(BT)/unit/test_kernelgen
	$(BT)/unit/test_kernelgen --seconds $(or $(FUZZ_SECONDS),60) --save test/fuzz

bench: all
	python3 bench/bench.py

# every kernel through tric and Triton side by side, and the launch overhead
bench-all: all
	TRIC_LIBRARY=$(B)/libtric.so python3 bench/side_by_side.py
	TRIC_LIBRARY=$(B)/libtric.so python3 bench/launch_overhead.py

demo: all
	@sh test/demo.sh

wc:
	@for d in $(LIB_DIRS) test; do printf '%-10s %6s\n' $$d "$$(cat $$d/*.[ch] $$d/*/*.[ch] 2>/dev/null | wc -l)"; done

clean:
	rm -rf $(B) $(BT)

.PHONY: all test accept gpu-test fuzz bench bench-all demo wc clean

-include $(LIB_OBJ:.o=.d) $(TLIB_OBJ:.o=.d) $(B)/tric.d $(BT)/tric.d
