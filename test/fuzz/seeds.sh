#!/bin/sh
# Seed corpora for the libFuzzer targets (test/fuzz/targets), written under
# OUT/<target>/ from what the tree already holds: kernels/*.py and their
# test blocks, test/ir/*.tir, test/lower/*.py (RUN lines), test/diag/*.py
# (ARGS lines), test/run.sh's --args. Used by `make fuzz-lib` (to start the
# fuzzers) and `make test` (to replay them).
#
#   test/fuzz/seeds.sh OUT CACHE_SEEDS
#
# CACHE_SEEDS is the cache_seeds program (cache entries need the library).
cd "$(dirname "$0")/../.." || exit 1
OUT=$1
CACHE_SEEDS=$2
[ -n "$OUT" ] && [ -n "$CACHE_SEEDS" ] || { echo "usage: test/fuzz/seeds.sh OUT CACHE_SEEDS" >&2; exit 2; }
rm -rf "$OUT"
mkdir -p "$OUT/compile" "$OUT/ir" "$OUT/signature" "$OUT/args" "$OUT/cache" || exit 1
US=$(printf '\037')

# a file named by its content (duplicates collapse): target, text on stdin
save() {
    tmp="$OUT/$1/.new"
    cat >"$tmp"
    sum=$(cksum <"$tmp" | cut -d' ' -f1)
    mv "$tmp" "$OUT/$1/$2_$sum"
}

# one line per test block: file kernel signature num_warps arch grid args check tol,
# separated by \037 (a tab would merge empty fields in read)
blocks() {
    awk -v us="$US" '
        function flush() { if (k != "") print f us k us s us w us a us g us r us c us t; k = s = w = a = g = r = c = t = "" }
        function val(line) { sub(/^#[ \t]*[a-z_]+:[ \t]*/, "", line); sub(/[ \t\r]+$/, "", line); return line }
        FNR == 1             { flush() }
        /^#[ \t]*kernel:/    { flush(); k = val($0); f = FILENAME }
        /^#[ \t]*signature:/ { s = val($0) }
        /^#[ \t]*num_warps:/ { w = val($0) }
        /^#[ \t]*arch:/      { a = val($0) }
        /^#[ \t]*grid:/      { g = val($0) }
        /^#[ \t]*args:/      { r = val($0) }
        /^#[ \t]*check:/     { c = val($0) }
        /^#[ \t]*tol:/       { t = val($0) }
        END { flush() }
    ' "$@"
}

# ---- kernel test blocks ----
n=0
last=
specs=
blocks kernels/[!_]*.py >"$OUT/.blocks"
while IFS="$US" read -r file kernel sig warps arch grid args check tol; do
    n=$((n + 1))
    base=$(basename "$file" .py)
    # the block's first arch, else sm_80 and sm_90a in turn
    arch=${arch%% *}
    [ -z "$arch" ] && { [ $((n % 2)) = 0 ] && arch=sm_90a || arch=sm_80; }
    { printf '# %s|%s|%s|%s\n' "$kernel" "$sig" "$arch" "$warps"; cat "$file"; } | save compile "$base"
    # cache entries: a plain kernel, a reduction, one with tensor maps (sm_90a)
    case $file:$sig in
        kernels/vector_add.py:*|kernels/softmax.py:*)
            [ "$file" != "$last" ] && specs="$specs$file|$kernel|$sig|$arch$US" ;;
        *tensordesc\<*)
            case $specs in *tensordesc\<*) ;; *) specs="$specs$file|$kernel|$sig|sm_90a$US" ;; esac ;;
    esac
    last=$file
    printf '%s' "$sig" | save signature "$base"
    printf '%s\n%s\n%s\n%s\n%s\n' "$sig" "$args" "$grid" "$check" "$tol" | save args "$base"
done <"$OUT/.blocks"
rm -f "$OUT/.blocks"

# ---- command lines: test/lower RUN lines, test/diag ARGS lines, test/run.sh ----
cli_seed() {   # name, file, tric arguments (shell words)
    name=$1 src=$2 kernel= sig= arch= warps= args= grid=
    eval "set -- $3" 2>/dev/null || return 0
    while [ $# -ge 2 ]; do
        case $1 in
            -k|--kernel) kernel=$2 ;;
            -s|--signature) [ -z "$sig" ] && sig=$2 ;;
            --arch) arch=$2 ;;
            --num-warps) warps=$2 ;;
            --args) args=$2 ;;
            --grid) grid=$2 ;;
            *) shift; continue ;;
        esac
        shift 2
    done
    [ -n "$sig" ] && printf '%s' "$sig" | save signature "$name"
    [ -n "$kernel" ] && [ -n "$sig" ] && [ -f "$src" ] &&
        { printf '# %s|%s|%s|%s\n' "$kernel" "$sig" "$arch" "$warps"; cat "$src"; } | save compile "$name"
    [ -n "$args" ] && [ -n "$sig" ] && printf '%s\n%s\n%s\n' "$sig" "$args" "$grid" | save args "$name"
    return 0
}
for py in test/lower/*.py; do
    sed -n '/^# RUN:/!q; s/^# RUN: *//p' "$py" | while IFS= read -r line; do
        cli_seed "lower_$(basename "$py" .py)" "$py" "$line"
    done
done
for py in test/diag/*.py; do
    line=$(head -n 1 "$py" | sed -n 's/^# ARGS: *//p')
    cli_seed "diag_$(basename "$py" .py)" "$py" "$line"
done
grep -o "\-s '[^']*' --interpret --args '[^']*'" test/run.sh | while IFS= read -r line; do
    cli_seed run_sh /nonexistent "$line"
done

# ---- IR ----
for tir in test/ir/*.tir; do
    save ir "$(basename "$tir" .tir)" <"$tir"
done

# ---- cache entries ----
old_ifs=$IFS
IFS=$US
set -f
# shellcheck disable=SC2086
set -- $specs
set +f
IFS=$old_ifs
"$CACHE_SEEDS" "$OUT/cache" "$@" || exit 1

# ---- dictionaries for libFuzzer (-dict): the words each reader knows, from its sources ----
dict() {   # target, files...
    t=$1
    shift
    grep -oh '"[A-Za-z_][A-Za-z0-9_.]*"' "$@" | sort -u >"$OUT/$t.dict"
}
dict compile frontend/*.c
printf '"%s"\n' def if elif else for while return import from as in not and or is pass break continue \
    True False None lambda with assert global >>"$OUT/compile.dict"
dict ir ir/ops.def ir/types.def ir/text.c
dict signature frontend/signature.c ir/types.def
dict args interp/args.c interp/check.c ir/types.def
dict cache runtime/cache.c

for t in compile ir signature args cache; do
    printf '%s: %s seeds\n' "$t" "$(ls "$OUT/$t" | wc -l)"
done
