#!/bin/sh
# make demo: build tric, compile kernels/vector_add.py to PTX and show it, then,
# where a GPU and driver are present, run it from C through the tric API,
# check the result and print the bandwidth.
set -e
cd "$(dirname "$0")/.."
B=${B:-build}
make -s B="$B" all

# the first test block of the kernel file names the kernel and its signature;
# the last signature entry is its BLOCK_SIZE constexpr (elements per program)
file=kernels/vector_add.py
kernel=$(sed -n 's/^# kernel: *//p' "$file" | head -n 1)
sig=$(sed -n 's/^# signature: *//p' "$file" | head -n 1)
block=$(printf '%s\n' "$sig" | awk -F, '{ gsub(/ /, "", $NF); print $NF }')

echo "== $B/tric $file -k $kernel -s '$sig'"
"$B/tric" "$file" -k "$kernel" -s "$sig"

echo "== the same kernel from C (examples/vector_add.c)"
${CC:-cc} -O2 -I runtime -o "$B/vector_add" examples/vector_add.c "$B/libtric.a" -ldl -lm -lpthread
"$B/vector_add" "$file" "$kernel" "$sig" "$block" $((1 << 26))
