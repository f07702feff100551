#!/bin/sh
# tric's test runner (POSIX sh), run by `make test` (and `make check`). One
# line per test, [PASS] name or [FAIL] name (with a diff or the output under
# it), then exactly one summary line "N passed, N failed"; exit status 1 if
# any failed. The tests run as parallel jobs (JOBS, default: the CPUs);
# their output is printed in the list's order, whatever order they end in.
#
#   unit   test/unit/NAME.c        the binary BT/unit/NAME exits 0
#   diag   test/diag/NAME.py       first line "# ARGS: ..."; run in test/diag as
#          + NAME.err              `tric NAME.py ARGS`: exit 1, stderr == NAME.err
#   ir     test/ir/NAME.tir        first line "// RUN: ..."; `tric test/ir/NAME.tir ARGS`:
#          + NAME.expected         exit 0, stdout == NAME.expected
#   ptx    test/ptx/NAME.py        first line "# ARGS: ..."; run in test/ptx as
#          + NAME.ptx              `tric NAME.py ARGS`: exit 0, stdout == NAME.ptx
#   lower  test/lower/NAME.py      leading "# RUN: ..." lines, each run in test/lower as
#          + NAME.expected         `tric NAME.py ARGS`: exit 0, outputs (under their RUN
#                                  lines) == NAME.expected
#   ptxas  kernels/*.py            each "# kernel:" test block (not in _*.py files),
#                                  compiled for sm_80, sm_90 and sm_90a, assembled by ptxas
#   fuzz   test/fuzz/targets/fuzz_T.c  replay_T (make test) runs test/fuzz/seeds.sh's seeds and
#          + test/fuzz/T/*             the saved inputs of test/fuzz/T/ without a crash
#   python test/python/test_*.py   python3 FILE exits 0 (skipped without python3)
#
# ACCEPT=1 (make accept) rewrites NAME.err / NAME.expected / NAME.ptx from the
# actual output: for deliberate changes only, review the diff before committing.
# QUICK=1 (make check) runs the fast part only: the unit tests but the slow
# ones (SLOW_UNITS), and the golden tests. TIMES=1 ends with the slowest jobs.
# BT names the test build (default build-test); PTXAS the assembler.

cd "$(dirname "$0")/.." || exit 1
ROOT=$(pwd)
BT=${BT:-build-test}
case $BT in /*) ;; *) BT=$ROOT/$BT ;; esac
TRIC=$BT/tric
PTXAS=${PTXAS:-$(command -v ptxas 2>/dev/null || echo /usr/local/cuda/bin/ptxas)}
ACCEPT=${ACCEPT:-0}
QUICK=${QUICK:-0}
JOBS=${JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}
# unit tests that take long (differential runs over every kernel block):
# first in the list, so they start first; left out by QUICK=1
SLOW_UNITS="test_sim test_interp test_fuzz_pipeline test_kernelgen test_pipeline test_regs"
# the slowest run in SHARDS parts (their --shard I/N option: blocks.h)
SHARDED_UNITS="test_sim test_interp test_fuzz_pipeline"
SHARDS=${SHARDS:-6}
export ROOT BT TRIC PTXAS ACCEPT QUICK

pass() { echo "[PASS] $1"; }
fail() { echo "[FAIL] $1"; }
indent() { head -n "${2:-40}" "$1" | sed 's/^/    /'; }
# show how actual ($2) differs from expected ($1)
show_diff() { diff -u "$1" "$2" >"$TMP/diff"; indent "$TMP/diff" 60; }

# A golden comparison: name, expected file, actual file. Under ACCEPT=1 the
# expected file is rewritten and the test passes.
golden() {
    if [ "$ACCEPT" = 1 ]; then
        if [ ! -f "$2" ] || ! cmp -s "$2" "$3"; then cp "$3" "$2"; echo "[ACCEPT] $1"; fi
        pass "$1"
    elif [ ! -f "$2" ]; then
        fail "$1 (no $2; run make accept to create it)"
    elif cmp -s "$2" "$3"; then
        pass "$1"
    else
        fail "$1"
        show_diff "$2" "$3"
    fi
}

# The text after a prefix on a file's first line ("# ARGS: " or "// RUN: ").
first_line_args() { head -n 1 "$1" | sed -n "s|^$2 *||p"; }

# The text after a prefix on a file's first line ("# ARGS: " or "// RUN: ").
first_line_args() { head -n 1 "$1" | sed -n "s|^$2 *||p"; }

# ---- the tests: t_KIND NAME... runs one, printing its result lines ----

t_unit() {   # NAME [I/N: the shard]
    bin=$BT/unit/$1
    name=unit/$1${2:+[$2]}
    if [ ! -x "$bin" ]; then
        [ "$ACCEPT" = 1 ] && return
        fail "$name (not built: run make test)"
    elif "$bin" ${2:+--shard "$2"} >"$TMP/out" 2>&1; then
        pass "$name"
    else
        fail "$name"
        indent "$TMP/out"
    fi
}

# diag: exact messages for bad input
t_diag() {
    name=$1
    py=test/diag/$name.py
    args=$(first_line_args "$py" "# ARGS:")
    if [ -z "$args" ]; then
        fail "diag/$name (first line must be '# ARGS: ...')"
        return
    fi
    (cd test/diag && eval "\"\$TRIC\" \"\$name.py\" $args") >"$TMP/out" 2>"$TMP/err"
    rc=$?
    if [ "$rc" -ne 1 ] && [ "$ACCEPT" != 1 ]; then
        fail "diag/$name (exit status $rc, expected 1)"
        indent "$TMP/err"
        return
    fi
    golden "diag/$name" "test/diag/$name.err" "$TMP/err"
}

# ir goldens: passes over hand-written IR
t_ir() {
    name=$1
    tir=test/ir/$name.tir
    args=$(first_line_args "$tir" "// RUN:")
    eval "\"\$TRIC\" \"\$tir\" $args" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    if [ "$rc" -ne 0 ]; then
        fail "ir/$name (exit status $rc)"
        indent "$TMP/err"
        return
    fi
    golden "ir/$name" "test/ir/$name.expected" "$TMP/out"
}

# ptx goldens: a few canonical kernels, whole PTX text
t_ptx() {
    name=$1
    args=$(first_line_args "test/ptx/$name.py" "# ARGS:")
    (cd test/ptx && eval "\"\$TRIC\" \"\$name.py\" $args") >"$TMP/out" 2>"$TMP/err"
    rc=$?
    if [ "$rc" -ne 0 ]; then
        fail "ptx/$name (exit status $rc)"
        indent "$TMP/err"
        return
    fi
    golden "ptx/$name" "test/ptx/$name.ptx" "$TMP/out"
}

# lowering goldens: the IR of .py kernels (test/lower). Each leading
# "# RUN: <tric args>" line of NAME.py is one run in test/lower, `tric
# NAME.py ARGS`; the outputs, each under its RUN line, must equal
# NAME.expected (e.g. --emit ir for the lowering, --dump-after dce -o
# /dev/null for the IR after the standard passes).
t_lower() {
    name=$1
    : >"$TMP/out"
    status=0
    sed -n '/^# RUN:/!q; s/^# RUN: *//p' "test/lower/$name.py" >"$TMP/runs"
    if [ ! -s "$TMP/runs" ]; then
        fail "lower/$name (first line must be '# RUN: ...')"
        return
    fi
    while IFS= read -r args; do
        echo "# RUN: $args" >>"$TMP/out"
        (cd test/lower && eval "\"\$TRIC\" \"\$name.py\" $args") >>"$TMP/out" 2>"$TMP/err" </dev/null || status=$?
        [ "$status" -ne 0 ] && break
    done <"$TMP/runs"
    if [ "$status" -ne 0 ]; then
        fail "lower/$name (exit status $status)"
        indent "$TMP/err"
        return
    fi
    golden "lower/$name" "test/lower/$name.expected" "$TMP/out"
}

# imports of the user's modules: -I and TRIC_PATH (test/modules)
imports_case() {   # name expected-file command...
    name=$1 exp=$2
    shift 2
    (cd test/modules && "$@") >"$TMP/out" 2>&1
    golden "imports/$name" "test/modules/$exp" "$TMP/out"
}
t_imports() {
    imports_case inductor inductor.expected "$TRIC" kernels/inductor_kernel.py -I . -k triton_poi_fused_maximum_relu_0 \
        -s '*fp32, *fp32, *fp32, i32, 64' --interpret --args 'a=arange(64,fp32)-30; b=full(64,2,fp32); o=zeros(64,fp32); n=60'
    imports_case tric_path pkg.expected env TRIC_PATH=/nonexistent:. "$TRIC" kernels/../pkg_kernel.py -k kern \
        -s '*fp32, *fp32, 64' --interpret --args 'x=arange(64,fp32); y=zeros(64,fp32)' --print y
    imports_case not_found not_found.expected "$TRIC" kernels/inductor_kernel.py -k triton_poi_fused_maximum_relu_0 \
        -s '*fp32, *fp32, *fp32, i32, 64' --emit ir
}

# ptxas: a kernel test block must assemble for sm_80, sm_90 and sm_90a (or
# its "# arch:" list). kernel_blocks prints one line per block of a file:
# kernel|signature|num_warps|archs (the last two may be empty: '|' and not
# a tab, which read would merge; archs: the block's "# arch:" list, for fp8).
kernel_blocks() {
    awk '
        function flush() { if (k != "") print k "|" s "|" w "|" a; k = ""; s = ""; w = ""; a = "" }
        function val(line) { sub(/^#[ \t]*[a-z_]+:[ \t]*/, "", line); sub(/[ \t\r]+$/, "", line); return line }
        /^#[ \t]*kernel:/    { flush(); k = val($0) }
        /^#[ \t]*signature:/ { s = val($0) }
        /^#[ \t]*num_warps:/ { w = val($0) }
        /^#[ \t]*arch:/      { a = val($0) }
        END { flush() }
    ' "$1"
}
t_ptxas() {   # kernels/FILE.py, the block's number in it
    py=$1 n=$2
    base=$(basename "$py")
    kernel_blocks "$py" | sed -n "${n}p" >"$TMP/block"
    IFS="|" read -r kern sig warps archs <"$TMP/block"
    for arch in ${archs:-sm_80 sm_90 sm_90a}; do
        name="ptxas/$base#$n:$kern@$arch"
        if [ -z "$sig" ]; then
            fail "$name (block has no '# signature:')"
            continue
        fi
        set -- --arch "$arch"
        [ -n "$warps" ] && set -- "$@" --num-warps "$warps"
        if ! "$TRIC" "$py" -k "$kern" -s "$sig" "$@" -o "$TMP/k.ptx" >"$TMP/out" 2>&1 </dev/null; then
            fail "$name (tric failed)"
            indent "$TMP/out"
        elif ! "$PTXAS" -arch="$arch" "$TMP/k.ptx" -o "$TMP/k.cubin" >"$TMP/out" 2>&1 </dev/null; then
            fail "$name"
            indent "$TMP/out"
        else
            pass "$name"
        fi
    done
}

# aot: the C that --emit c writes, compiled strictly and run over a fake
# driver. test/aot/kernels.py's blocks become kernels.h/.c (cubins too when
# ptxas is here); aot_test.c runs them with test/aot/fake_cuda.c as
# libcuda.so.1, whose PTX launches run on the simulator.
t_aot() {
    AOT=$TMP/aot
    mkdir -p "$AOT"
    cubin=0
    [ -x "$PTXAS" ] && cubin=1
    ptxas_for_tric=none
    [ "$cubin" = 1 ] && ptxas_for_tric=$PTXAS
    if ! TRIC_PTXAS=$ptxas_for_tric "$TRIC" test/aot/kernels.py --emit c --arch sm_90a --arch sm_80 \
            -o "$AOT/kernels" >"$TMP/out" 2>&1; then
        fail "aot/emit"
        indent "$TMP/out"
        return
    fi
    pass "aot/emit"
    # the header, PTX only so that it reads the same with or without ptxas
    mkdir -p "$AOT/golden"
    if TRIC_PTXAS=none "$TRIC" test/aot/kernels.py --emit c --arch sm_90a --arch sm_80 -o "$AOT/golden/kernels" \
            >"$TMP/out" 2>&1; then
        golden "aot/header" test/aot/kernels.h.expected "$AOT/golden/kernels.h"
    else
        fail "aot/header"
        indent "$TMP/out"
    fi
    cc=${CC:-cc}
    san="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
    for std in c99 c11; do
        if $cc -std=$std -Wall -Wextra -Werror -O1 -c "$AOT/kernels.c" -o "$AOT/k.o" >"$TMP/out" 2>&1; then
            pass "aot/compile-$std"
        else
            fail "aot/compile-$std (cc -std=$std -Wall -Wextra -Werror)"
            indent "$TMP/out"
        fi
    done
    if command -v c++ >/dev/null 2>&1; then
        printf '#include "kernels.h"\n' >"$AOT/h.cpp"
        if c++ -std=c++11 -Wall -Wextra -Werror -fsyntax-only -I"$AOT" "$AOT/h.cpp" >"$TMP/out" 2>&1; then
            pass "aot/header-c++"
        else
            fail "aot/header-c++"
            indent "$TMP/out"
        fi
    fi
    if ! $cc -std=c11 -g $san -DHAVE_CUBIN=$cubin -I"$AOT" test/aot/aot_test.c "$AOT/kernels.c" \
            -o "$AOT/aot_test" -ldl -lpthread >"$TMP/out" 2>&1; then
        fail "aot/build"
        indent "$TMP/out"
        return
    fi
    for mode in "" noinit; do
        name="aot/run${mode:+-$mode}"
        if LD_LIBRARY_PATH=$BT/aot${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$AOT/aot_test" $mode >"$TMP/out" 2>&1; then
            pass "$name"
        else
            fail "$name"
            indent "$TMP/out"
        fi
    done
}
# install: make install, then build against it as a user would. The
# installed library exports tric_* only and has a SONAME; pkg-config builds
# examples/vector_add.c (static and shared); tric.mk and the CMake package
# build examples/aot, which runs over the fake driver.
inst_check() {   # name, command...: pass if the command succeeds
    name=$1
    shift
    if "$@" >"$TMP/out" 2>&1; then pass "$name"; else fail "$name"; indent "$TMP/out"; fi
}
exports_only_tric() {   # nm options and a library: its global definitions are tric_* only
    nm "$@" | awk '$2 ~ /^[TDBRVW]$/ && $3 !~ /^tric_/ { print; bad = 1 } END { exit bad }'
}
t_install() {
    INST=$TMP/inst
    if ! ${MAKE:-make} -s install PREFIX="$INST" >"$TMP/out" 2>&1; then
        fail "install/make-install"
        indent "$TMP/out"
        return
    fi
    pass "install/make-install"
    so=$INST/lib/libtric.so
    inst_check "install/soname" sh -c "readelf -d '$so' | grep -q 'SONAME.*\[libtric\.so\.[0-9]*\]'"
    inst_check "install/exports-so" exports_only_tric -D --defined-only "$so"
    inst_check "install/exports-a" exports_only_tric -g --defined-only "$INST/lib/libtric.a"
    if python3 -m pip --version >/dev/null 2>&1; then   # the Python package, library inside
        inst_check "install/pip" sh -c "python3 -m pip install -q --no-deps --target '$TMP/pip' . && cd '$TMP' &&
            env -u TRIC_LIBRARY PYTHONPATH='$TMP/pip' python3 -c 'import tric._lib as l, sys
sys.exit(not l.lib._name.startswith(\"$TMP/pip/tric/\"))'"
    else
        echo "note: pip not found: skipping pip install ."
    fi
    if ! command -v pkg-config >/dev/null 2>&1; then
        echo "note: pkg-config not found: skipping the builds against the installed tric"
        return
    fi
    export PKG_CONFIG_PATH=$INST/lib/pkgconfig
    cc=${CC:-cc}
    inst_check "install/pkg-config-shared" sh -c "$cc \$(pkg-config --cflags tric) examples/vector_add.c \
        \$(pkg-config --libs tric) -Wl,-rpath,$INST/lib -o '$TMP/va' && '$TMP/va' x k s 1 | grep -q 'no GPU here'"
    inst_check "install/pkg-config-static" sh -c "$cc \$(pkg-config --cflags tric) examples/vector_add.c \
        $INST/lib/libtric.a \$(pkg-config --libs-only-other --static tric) -ldl -lm -lpthread -o '$TMP/va2'"
    if [ ! -f "${CUDA_HOME:-/usr/local/cuda}/include/cuda.h" ]; then
        echo "note: no cuda.h: skipping examples/aot against the installed tric"
        return
    fi
    fake="-L$BT/aot -l:libcuda.so.1"
    ex=$TMP/ex-make
    mkdir -p "$ex"
    cp examples/aot/add.py examples/aot/main.c examples/aot/Makefile "$ex/"
    mk=$(pkg-config --variable=mkdir tric)/tric.mk
    inst_check "install/tric.mk" sh -c "cd '$ex' && ${MAKE:-make} -s TRIC='$INST/bin/tric' TRIC_MK='$mk' \
        CUDA_LIBS='$fake' && FAKE_CUDA_REJECT_CUBIN=1 LD_LIBRARY_PATH='$BT/aot' ./vector_add 3000"
    if ! command -v cmake >/dev/null 2>&1; then
        echo "note: cmake not found: skipping the CMake package"
        return
    fi
    ex=$TMP/ex-cmake
    mkdir -p "$ex/build"
    cp examples/aot/add.py examples/aot/main.c "$ex/"
    cat >"$ex/CMakeLists.txt" <<EOF2
cmake_minimum_required(VERSION 3.16)
project(aot_example C)
find_package(Tric REQUIRED)
add_executable(vector_add main.c)
target_include_directories(vector_add PRIVATE "${CUDA_HOME:-/usr/local/cuda}/include")
target_link_libraries(vector_add PRIVATE "$BT/aot/libcuda.so.1")
tric_add_kernels(vector_add SOURCES add.py ARCHS sm_80)
EOF2
    inst_check "install/cmake" sh -c "cd '$ex/build' && cmake -S .. -B . -DCMAKE_PREFIX_PATH='$INST' -DCMAKE_BUILD_TYPE=Release \
        && cmake --build . && FAKE_CUDA_REJECT_CUBIN=1 LD_LIBRARY_PATH='$BT/aot' ./vector_add 3000"
}
# fuzz targets: their seeds and saved inputs, replayed without libFuzzer
# (test/fuzz/README)
t_fuzz() {
    if [ ! -x "$BT/fuzz/cache_seeds" ]; then
        fail "fuzz/seeds (not built: run make test)"
        return
    fi
    if ! sh test/fuzz/seeds.sh "$TMP/seeds" "$BT/fuzz/cache_seeds" >"$TMP/out" 2>&1; then
        fail "fuzz/seeds"
        indent "$TMP/out"
        return
    fi
    for t in compile ir signature args cache; do
        bin=$BT/fuzz/replay_$t
        saved=
        [ -d "test/fuzz/$t" ] && saved=test/fuzz/$t
        if [ ! -x "$bin" ]; then
            fail "fuzz/$t (not built: run make test)"
        elif "$bin" "$TMP/seeds/$t" $saved >"$TMP/out" 2>&1; then
            pass "fuzz/$t"
        else
            fail "fuzz/$t"
            # the input that failed is the last "replay:" line; the report follows it
            sed -n '/^replay: /h; /^replay: /!H; ${x; p}' "$TMP/out" | head -n 60 | sed 's/^/    /'
        fi
    done
}

# python (hook for the language tests): each file exits 0 to pass
t_python() {
    t=test/python/$1.py
    if TRIC_BUILD=$BT python3 "$t" >"$TMP/out" 2>&1; then
        pass "python/$1"
    else
        fail "python/$1"
        indent "$TMP/out"
    fi
}

# ---- the list: one job a line, "KIND ARGS...", the slow ones first ----
list_jobs() {
    for u in $SLOW_UNITS; do
        [ "$QUICK" = 1 ] || [ ! -e "test/unit/$u.c" ] && continue
        case " $SHARDED_UNITS " in
        *" $u "*) i=0; while [ "$i" -lt "$SHARDS" ]; do echo "unit $u $i/$SHARDS"; i=$((i + 1)); done ;;
        *) echo "unit $u" ;;
        esac
    done
    if [ "$QUICK" != 1 ] && [ -x "$PTXAS" ]; then
        for py in kernels/*.py; do
            case $(basename "$py") in _*) continue ;; esac
            kernel_blocks "$py" | awk -v py="$py" '{ print "ptxas " py " " NR }'
        done
    fi
    if [ "$QUICK" != 1 ]; then
        echo aot
        echo install
        echo fuzz
        if command -v python3 >/dev/null 2>&1; then
            for t in test/python/test_*.py; do [ -e "$t" ] && echo "python $(basename "$t" .py)"; done
        fi
    fi
    for src in test/unit/*.c; do
        name=$(basename "$src" .c)
        case " $SLOW_UNITS " in *" $name "*) continue ;; esac
        echo "unit $name"
    done
    for f in test/diag/*.py; do [ -e "$f" ] && echo "diag $(basename "$f" .py)"; done
    for f in test/ir/*.tir; do [ -e "$f" ] && echo "ir $(basename "$f" .tir)"; done
    for f in test/ptx/*.py; do [ -e "$f" ] && echo "ptx $(basename "$f" .py)"; done
    for f in test/lower/*.py; do [ -e "$f" ] && echo "lower $(basename "$f" .py)"; done
    echo imports
}

# ---- a job (run by xargs below): its results into $WORK/res/INDEX ----
if [ "${1:-}" = --job ]; then
    idx=$2
    shift 2
    TMP=$WORK/j$idx
    mkdir -p "$TMP"
    start=$(date +%s.%N)
    "t_$@" >"$WORK/res/$idx.part" 2>&1 </dev/null
    awk -v a="$start" -v b="$(date +%s.%N)" -v what="$*" 'BEGIN { printf "%6.1f %s\n", b - a, what }' >"$WORK/time/$idx"
    mv "$WORK/res/$idx.part" "$WORK/res/$idx"
    rm -rf "$TMP"
    exit 0
fi

if [ ! -x "$TRIC" ]; then
    echo "test/run.sh: $TRIC is not built (run make test)"
    echo "0 passed, 1 failed"
    exit 1
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tric-test.XXXXXX") || exit 1
export WORK
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM
# compiles through the library use the disk cache: keep it out of $HOME
export TRIC_CACHE_DIR="$WORK/cache"
mkdir -p "$WORK/res" "$WORK/time"
[ -x "$PTXAS" ] || [ "$QUICK" = 1 ] ||
    echo "note: ptxas not found (set PTXAS or install the CUDA toolkit): skipping ptxas validation"
command -v python3 >/dev/null 2>&1 || [ "$QUICK" = 1 ] || echo "note: python3 not found: skipping test/python"

list_jobs | awk '{ print NR " " $0 }' >"$WORK/jobs"
n=$(wc -l <"$WORK/jobs")
{ xargs -P "$JOBS" -L 1 sh "$ROOT/test/run.sh" --job <"$WORK/jobs"; touch "$WORK/all-done"; } &
i=1
while [ "$i" -le "$n" ]; do
    if [ -f "$WORK/res/$i" ]; then
        cat "$WORK/res/$i"
        i=$((i + 1))
    elif [ -f "$WORK/all-done" ]; then
        echo "[FAIL] job $(sed -n "${i}p" "$WORK/jobs") (did not finish)"
        echo "[FAIL]" >"$WORK/res/$i"
        i=$((i + 1))
    else
        sleep 0.2
    fi
done
wait
npass=$(cat "$WORK"/res/* | grep -c '^\[PASS\]')
nfail=$(cat "$WORK"/res/* | grep -c '^\[FAIL\]')
if [ "${TIMES:-0}" = 1 ]; then
    echo "slowest jobs (seconds):"
    cat "$WORK"/time/* | sort -rn | head -n 15 | sed 's/^/    /'
fi
echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
