#!/bin/sh
# Cold start and launch overhead of kernels in C programs, on the GPU
# machine after `make` (needs Triton for its AOT tool, nvidia-smi, cc):
#
#   sh bench/aot_startup.sh           tables on stdout; scratch under $OUT or /tmp
#
# Ways (bench/aot_startup.c): the launcher `tric --emit c` writes (with the
# cubin, and with PTX only, which the driver JIT-compiles at the first
# launch), Triton's AOT tool (triton.tools.compile, a cubin), and libtric's
# JIT path (compile at run time) with its disk cache cold and warm. Kernels:
# a vector add (1 program) and kernels/matmul.py's fp16 matmul, 128x128x64
# tiles, 8 warps, M = N = K = 512. Each row is the median of RUNS processes
# (default 5); the driver's own JIT cache is off (CUDA_CACHE_DISABLE=1) but
# in the row that says otherwise.
set -e
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
W=${OUT:-/tmp}/aot_startup
rm -rf "$W"
mkdir -p "$W"
TRIC=build/tric
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
CC=${CC:-cc}
CF="-O2 -I$CUDA_HOME/include -Iruntime"
LIBS="-L$CUDA_HOME/lib64/stubs -lcuda -ldl -lpthread -lm"
cc_num=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d ' .')
ARCH=sm_$cc_num
[ "$cc_num" = 90 ] && ARCH=sm_90a
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)

ADD_SIG='*fp32:16, *fp32:16, *fp32:16, i32:16, 1024'
MM_SIG="*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1, 128, 128, 64, 8, '', 'tf32'"

# ---- build every way ----
tric_aot() {   # kind img: the launcher, with a cubin or PTX only
    d=$W/$1-$2
    mkdir -p "$d"
    if [ "$1" = add ]; then set -- "$1" "$2" examples/aot/add.py add_kernel "$ADD_SIG" 4 KIND_ADD
    else set -- "$1" "$2" kernels/matmul.py matmul_kernel "$MM_SIG" 8 KIND_MM; fi
    ptxas=
    [ "$2" = ptx ] && ptxas=none
    TRIC_PTXAS=$ptxas $TRIC "$3" --emit c -k "$4" -s "$5" --num-warps "$6" --arch "$ARCH" -o "$d/aot.tric"
    $CC $CF -DWAY_TRIC -D"$7" -DKERNEL_ERROR="$4_last_error" -I"$d" bench/aot_startup.c "$d/aot.tric.c" \
        -o "$d/run" $LIBS
    $CC -O2 -c "$d/aot.tric.c" -o "$d/aot.tric.o"
}
for k in add mm; do for img in cubin ptx; do tric_aot $k $img; done; done
$TRIC examples/aot/add.py -k add_kernel -s "$ADD_SIG" --arch "$ARCH" -o "$W/add.ptx"
for a in sm_80 sm_90a; do   # object sizes per arch
    for img in cubin ptx; do
        ptxas=
        [ "$img" = ptx ] && ptxas=none
        TRIC_PTXAS=$ptxas $TRIC examples/aot/add.py --emit c -k add_kernel -s "$ADD_SIG" --arch $a -o "$W/size-$a-$img"
        $CC -O2 -c "$W/size-$a-$img.c" -o "$W/size-$a-$img.o"
    done
done
$TRIC examples/aot/add.py --emit c -k add_kernel -s "$ADD_SIG" --arch sm_80 --arch sm_90a -o "$W/size-both-cubin"
$CC -O2 -c "$W/size-both-cubin.c" -o "$W/size-both-cubin.o"

mkdir -p "$W/tt"
python3 -m triton.tools.compile examples/aot/add.py -n add_kernel -s "$ADD_SIG" -g "1, 1, 1" -w 4 \
    -o "$W/tt/add" >"$W/tt/log" 2>&1
tt_h=$(ls "$W"/tt/*.h | head -n 1)
tt_c=$(ls "$W"/tt/*.c | head -n 1)
tt_fn=$(sed -n 's/^CUresult *\(add_kernel_[0-9A-Za-z_]*\)(.*/\1/p' "$tt_h" | head -n 1)
$CC $CF -DWAY_TRITON -DKIND_ADD -DTT_HEADER="\"$tt_h\"" -DTT_FN="$tt_fn" -DTT_FUNC="${tt_fn}_func" \
    bench/aot_startup.c "$tt_c" -o "$W/tt/run" $LIBS
$CC -O2 -I"$CUDA_HOME/include" -c "$tt_c" -o "$W/tt/add.o"

for k in add mm; do
    if [ $k = add ]; then set -- examples/aot/add.py add_kernel "$ADD_SIG" KIND_ADD
    else set -- kernels/matmul.py matmul_kernel "$MM_SIG" KIND_MM; fi
    sig=$(printf '%s' "$3" | sed 's/"/\\"/g')
    $CC $CF -DWAY_JIT -D"$4" -DPY="\"$1\"" -DKERNEL="\"$2\"" -DSIG="\"$sig\"" bench/aot_startup.c build/libtric.a \
        -o "$W/jit-$k" $LIBS
done

# ---- run ----
now_ms() { echo $(($(date +%s%N) / 1000000)); }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# run LABEL SETUP CMD...: SETUP (a shell snippet) runs before each process
run() {
    label=$1 setup=$2
    shift 2
    : >"$W/wall" && : >"$W/first" && : >"$W/init"
    i=0
    while [ $i -lt "$RUNS" ]; do
        eval "$setup"
        t0=$(now_ms)
        out=$(CUDA_CACHE_DISABLE=${DRIVER_CACHE_DISABLE:-1} "$@")
        t1=$(now_ms)
        echo $((t1 - t0)) >>"$W/wall"
        echo "$out" | awk '/first_ms/ { print $4 }' >>"$W/first"
        echo "$out" | awk '/first_ms/ { print $2 }' >>"$W/init"
        i=$((i + 1))
    done
    printf '| %s | %s | %s | %s |\n' "$label" "$(median <"$W/wall")" "$(median <"$W/init")" "$(median <"$W/first")"
}

echo "## Cold start on $GPU ($ARCH): median of $RUNS processes, ms"
echo
echo "| way | process wall | main to context + inputs | first launch to its end |"
echo "|---|---|---|---|"
for k in add mm; do
    run "$k: tric --emit c, cubin" "" "$W/$k-cubin/run"
    run "$k: tric --emit c, PTX only (driver JIT)" "" "$W/$k-ptx/run"
    [ $k = add ] && run "add: Triton AOT (triton.tools.compile), cubin" "" "$W/tt/run"
    run "$k: libtric JIT, cold cache" 'rm -rf "$W/cache-$k"; export TRIC_CACHE_DIR="$W/cache-$k"' "$W/jit-$k"
    run "$k: libtric JIT, warm cache" 'export TRIC_CACHE_DIR="$W/cache-$k"' "$W/jit-$k"
    rm -f "$W/cache-$k"/jit-*
    DRIVER_CACHE_DISABLE=0
    export CUDA_CACHE_PATH="$W/nvcache-$k"
    TRIC_CACHE_DIR="$W/cache-$k" CUDA_CACHE_DISABLE=0 "$W/jit-$k" >/dev/null   # primes the driver's cache
    run "$k: libtric JIT, compile cache warm, no JIT cubin (the driver's JIT cache instead)" \
        'export TRIC_CACHE_DIR="$W/cache-$k"; rm -f "$W/cache-$k"/jit-*' "$W/jit-$k"
    unset CUDA_CACHE_PATH DRIVER_CACHE_DISABLE
done

echo
echo "## Launch overhead: host time per launch, 20000 launches of a 1-program vector add, us"
echo
echo "| way | its launcher | cuLaunchKernel on the same kernel |"
echo "|---|---|---|"
o=$("$W/add-cubin/run" "$W/add.ptx" 20000 | awk '/launch_us/ { print $2 " | " $4 }')
echo "| tric --emit c | $o |"
o=$("$W/tt/run" x 20000 | awk '/launch_us/ { print $2 " | " $4 }')
echo "| Triton AOT | $o |"

echo
echo "## Object size of the generated C (text + data), vector add, bytes"
echo
echo "| file | bytes |"
echo "|---|---|"
for f in size-sm_80-ptx size-sm_80-cubin size-sm_90a-ptx size-sm_90a-cubin size-both-cubin; do
    echo "| tric: $f | $(size -B "$W/$f.o" | awk 'NR == 2 { print $1 + $2 + $3 }') |"
done
echo "| Triton AOT ($ARCH cubin) | $(size -B "$W/tt/add.o" | awk 'NR == 2 { print $1 + $2 + $3 }') |"
