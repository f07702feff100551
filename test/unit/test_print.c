/* print, tl.device_print, tl.device_assert, the assert statement and
 * tl.debug_barrier: the lines the interpreter prints (exact text, two
 * programs, hex, a 2-D index, every dtype), the located message of a failed
 * assertion, and PTX that calls vprintf / __assertfail and that ptxas
 * accepts for sm_80 and sm_90a. Through the public API, as a C user would. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/tric.h"

#include "check.h"
#include "ptxas.h"

#define HEADER "import triton\nimport triton.language as tl\n\n@triton.jit\n"

/* Collects what the kernel prints. */
typedef struct Out {
    char text[1 << 14];
    size_t len;
    int calls;
} Out;

static void collect(const char *text, size_t len, void *user) {
    Out *o = user;
    o->calls++;
    if (o->len + len < sizeof o->text) {
        memcpy(o->text + o->len, text, len);
        o->len += len;
        o->text[o->len] = 0;
    }
}

static tric_kernel *compile(const char *path, const char *src, const char *kernel, const char *sig, const char *arch,
                            int debug) {
    tric_options opt = {.arch = arch, .num_warps = 4, .debug = debug};
    tric_kernel *k = NULL;
    char *err = NULL;
    if (tric_compile_source(path, src, kernel, sig, &opt, &k, &err) != TRIC_OK) {
        fprintf(stderr, "%s: compile failed:\n%s", kernel, err ? err : "(no message)");
        failures++;
    }
    tric_free(err);
    return k;
}

/* Runs k on the interpreter; returns the status, the prints in *out and
 * the error text (or "") in err. */
static int interpret(tric_kernel *k, unsigned gx, const uint64_t *slots, int n_bufs, const tric_host_buffer *bufs,
                     Out *out, char *err, size_t err_size) {
    memset(out, 0, sizeof *out);
    char *e = NULL;
    int st = tric_interpret_print(k, gx, 1, 1, slots, n_bufs, bufs, collect, out, &e);
    snprintf(err, err_size, "%s", e ? e : "");
    tric_free(e);
    return st;
}

static bool same(const char *what, const char *got, const char *want) {
    if (!strcmp(got, want)) return true;
    fprintf(stderr, "%s: got\n%s---- expected\n%s----\n", what, got, want);
    return false;
}

static const char k1_src[] = HEADER
    "def k1(x_ptr, BLOCK: tl.constexpr):\n"
    "    pid = tl.program_id(0)\n"
    "    offs = pid * BLOCK + tl.arange(0, BLOCK)\n"
    "    x = tl.load(x_ptr + offs)\n"
    "    print(\"x\", x)\n"
    "    tl.device_print(\"offs=\", offs, hex=True)\n"
    "    tl.device_print(\"\", pid, x < 1)\n"
    "    tl.static_print(\"compile time\", BLOCK)\n"
    "    print(\"hello\", 7)\n"
    "    tl.debug_barrier()\n";

/* Two programs of 4: the prefix tidied as Triton does, operands numbered
 * when there are several, a print with no values once per program. */
static void test_two_programs(void) {
    tric_kernel *k = compile("k1.py", k1_src, "k1", "*fp32, 4", "sm_80", 0);
    if (!k) return;
    float x[8] = {0.5f, -1.25f, 2, 3, 100, 1e-7f, -0.0f, 7.75f};
    tric_host_buffer b = {x, sizeof x, "x", 0};
    uint64_t slots[1] = {(uint64_t)(uintptr_t)x};
    Out out;
    char err[2048];
    CHECK(interpret(k, 2, slots, 1, &b, &out, err, sizeof err) == TRIC_OK);
    CHECK(same("k1", out.text,
               "pid (0, 0, 0) idx (0) x: 0.500000\n"
               "pid (0, 0, 0) idx (1) x: -1.250000\n"
               "pid (0, 0, 0) idx (2) x: 2.000000\n"
               "pid (0, 0, 0) idx (3) x: 3.000000\n"
               "pid (0, 0, 0) idx (0) offs=: 0x00000000\n"
               "pid (0, 0, 0) idx (1) offs=: 0x00000001\n"
               "pid (0, 0, 0) idx (2) offs=: 0x00000002\n"
               "pid (0, 0, 0) idx (3) offs=: 0x00000003\n"
               "pid (0, 0, 0) idx (): (operand 0) 0\n"
               "pid (0, 0, 0) idx (0): (operand 1) 1\n"
               "pid (0, 0, 0) idx (1): (operand 1) 1\n"
               "pid (0, 0, 0) idx (2): (operand 1) 0\n"
               "pid (0, 0, 0) idx (3): (operand 1) 0\n"
               "pid (0, 0, 0) hello 7\n"
               "pid (1, 0, 0) idx (0) x: 100.000000\n"
               "pid (1, 0, 0) idx (1) x: 0.000000\n"
               "pid (1, 0, 0) idx (2) x: -0.000000\n"
               "pid (1, 0, 0) idx (3) x: 7.750000\n"
               "pid (1, 0, 0) idx (0) offs=: 0x00000004\n"
               "pid (1, 0, 0) idx (1) offs=: 0x00000005\n"
               "pid (1, 0, 0) idx (2) offs=: 0x00000006\n"
               "pid (1, 0, 0) idx (3) offs=: 0x00000007\n"
               "pid (1, 0, 0) idx (): (operand 0) 1\n"
               "pid (1, 0, 0) idx (0): (operand 1) 0\n"
               "pid (1, 0, 0) idx (1): (operand 1) 1\n"
               "pid (1, 0, 0) idx (2): (operand 1) 1\n"
               "pid (1, 0, 0) idx (3): (operand 1) 0\n"
               "pid (1, 0, 0) hello 7\n"));
    CHECK(out.calls == 1);
    /* static_print: a note of the compilation */
    CHECK(same("k1 log", tric_kernel_log(k),
               "k1.py:12:5: note: compile time 4\n    tl.static_print(\"compile time\", BLOCK)\n    ^\n"));
    /* print NULL drops the lines; the run still succeeds */
    char *e = NULL;
    CHECK(tric_interpret_print(k, 2, 1, 1, slots, 1, &b, NULL, NULL, &e) == TRIC_OK);
    tric_free(e);
    /* the PTX calls vprintf once per element a thread holds */
    const char *ptx = tric_kernel_ptx(k);
    CHECK(ptx && strstr(ptx, ".extern .func (.param .b32 retval) vprintf"));
    CHECK(ptx && strstr(ptx, "call (ret_arg), vprintf, (fmt_arg, args_arg);"));
    CHECK(ptx && strstr(ptx, "bar.sync 0;"));
    tric_kernel_free(k);
}

static const char k2_src[] = HEADER
    "def k2(out_ptr):\n"
    "    r = tl.arange(0, 2)[:, None] * 16 + tl.arange(0, 16)[None, :]\n"
    "    tl.device_print(\" m: \", r)\n"
    "    tl.store(out_ptr + r, r)\n";

/* A 2-D tile: indices padded to the digits of each dim (1 and 2 here). */
static void test_2d(void) {
    tric_kernel *k = compile("k2.py", k2_src, "k2", "*i32", "sm_90a", 0);
    if (!k) return;
    int32_t buf[32];
    tric_host_buffer b = {buf, sizeof buf, "out", 0};
    uint64_t slots[1] = {(uint64_t)(uintptr_t)buf};
    Out out;
    char err[2048], want[4096];
    size_t n = 0;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 16; j++)
            n += (size_t)snprintf(want + n, sizeof want - n, "pid (0, 0, 0) idx (%d, %2d) m: %d\n", i, j, i * 16 + j);
    CHECK(interpret(k, 1, slots, 1, &b, &out, err, sizeof err) == TRIC_OK);
    CHECK(same("k2", out.text, want));
    tric_kernel_free(k);
}

static const char k3_src[] = HEADER
    "def k3(b, i8, i16, i32, i64, u8, u16, u32, u64, h, bh, f, d, p8):\n"
    "    e = tl.load(p8)\n"
    "    tl.device_print(\"v\", b, i8, i16, i32, i64, u8, u16, u32, u64, h, bh, f, d)\n"
    "    tl.device_print(\"hex\", b, i8, i16, i32, i64, u8, u16, u32, u64, h, bh, f, d, e, hex=True)\n";

static void test_dtypes(void) {
    tric_kernel *k = compile("k3.py", k3_src, "k3", "i1, i8, i16, i32, i64, u8, u16, u32, u64, fp16, bf16, fp32, fp64, *fp8e5",
                             "sm_80", 0);
    if (!k) return;
    float f = 0.1f;
    double d = 1e10;
    uint32_t fbits;
    uint64_t dbits;
    memcpy(&fbits, &f, 4);
    memcpy(&dbits, &d, 8);
    uint8_t e8 = 0x3C;   /* 1.0 in f8e5m2 */
    tric_host_buffer b = {&e8, 1, "e", 0};
    uint64_t slots[14] = {1, (uint64_t)-5, (uint64_t)-300, (uint64_t)-70000, (uint64_t)-5000000000LL, 200, 60000,
                          4000000000u, 18000000000000000000ull, 0x3E00, 0xC000, fbits, dbits,
                          (uint64_t)(uintptr_t)&e8};
    Out out;
    char err[2048];
    CHECK(interpret(k, 1, slots, 1, &b, &out, err, sizeof err) == TRIC_OK);
    CHECK(same("k3", out.text,
               "pid (0, 0, 0) idx () v: (operand 0) 1\n"
               "pid (0, 0, 0) idx () v: (operand 1) -5\n"
               "pid (0, 0, 0) idx () v: (operand 2) -300\n"
               "pid (0, 0, 0) idx () v: (operand 3) -70000\n"
               "pid (0, 0, 0) idx () v: (operand 4) -5000000000\n"
               "pid (0, 0, 0) idx () v: (operand 5) 200\n"
               "pid (0, 0, 0) idx () v: (operand 6) 60000\n"
               "pid (0, 0, 0) idx () v: (operand 7) 4000000000\n"
               "pid (0, 0, 0) idx () v: (operand 8) 18000000000000000000\n"
               "pid (0, 0, 0) idx () v: (operand 9) 1.500000\n"
               "pid (0, 0, 0) idx () v: (operand 10) -2.000000\n"
               "pid (0, 0, 0) idx () v: (operand 11) 0.100000\n"
               "pid (0, 0, 0) idx () v: (operand 12) 10000000000.000000\n"
               "pid (0, 0, 0) idx () hex: (operand 0) 0x1\n"
               "pid (0, 0, 0) idx () hex: (operand 1) 0xfb\n"
               "pid (0, 0, 0) idx () hex: (operand 2) 0xfed4\n"
               "pid (0, 0, 0) idx () hex: (operand 3) 0xfffeee90\n"
               "pid (0, 0, 0) idx () hex: (operand 4) 0xfffffffed5fa0e00\n"
               "pid (0, 0, 0) idx () hex: (operand 5) 0xc8\n"
               "pid (0, 0, 0) idx () hex: (operand 6) 0xea60\n"
               "pid (0, 0, 0) idx () hex: (operand 7) 0xee6b2800\n"
               "pid (0, 0, 0) idx () hex: (operand 8) 0xf9ccd8a1c5080000\n"
               "pid (0, 0, 0) idx () hex: (operand 9) 0x3e00\n"
               "pid (0, 0, 0) idx () hex: (operand 10) 0xc000\n"
               "pid (0, 0, 0) idx () hex: (operand 11) 0x3dcccccd\n"
               "pid (0, 0, 0) idx () hex: (operand 12) 0x4202a05f20000000\n"
               "pid (0, 0, 0) idx () hex: (operand 13) 0x3c\n"));
    const char *ptx = tric_kernel_ptx(k);
    /* one format per operand: the integer, float and hex conversions */
    CHECK(ptx && strstr(ptx, "cvt.f64.f32"));
    CHECK(ptx && strstr(ptx, "cvt.s32.s16"));
    tric_kernel_free(k);
}

static const char k4_src[] = HEADER
    "def k4(x_ptr, BLOCK: tl.constexpr):\n"
    "    pid = tl.program_id(0)\n"
    "    x = tl.load(x_ptr + pid * BLOCK + tl.arange(0, BLOCK))\n"
    "    print(\"pid\", pid)\n"
    "    assert pid < 5, \"pid in range\"\n"
    "    tl.device_assert(x > 0, \"x must be positive\")\n"
    "    tl.device_assert(x != 6, mask=x > 6)\n";

static const char k5_src[] = HEADER
    "def k5(n):\n"
    "    assert tl.program_id(0) < n\n";

static const char k6_src[] = HEADER
    "def k6(n):\n"
    "    tl.assume(n - tl.program_id(0) > 0)\n";

/* The first false element stops the run at the assert, after the lines
 * printed so far; a mask exempts elements; no message, no ": MSG". */
static void test_assert(void) {
    tric_kernel *k = compile("k4.py", k4_src, "k4", "*fp32, 4", "sm_80", 0);
    if (!k) return;
    float x[8] = {1, 2, 3, 4, 5, -6, 7, 8};
    tric_host_buffer b = {x, sizeof x, "x", 0};
    uint64_t slots[1] = {(uint64_t)(uintptr_t)x};
    Out out;
    char err[2048];
    CHECK(interpret(k, 2, slots, 1, &b, &out, err, sizeof err) == TRIC_ERR_INTERPRET);
    CHECK(same("k4 prints", out.text, "pid (0, 0, 0) idx () pid: 0\npid (1, 0, 0) idx () pid: 1\n"));
    CHECK(same("k4 error", err,
               "k4.py:10:5: error: device assertion failed: x must be positive: element (1) in program (1, 0, 0)\n"
               "    tl.device_assert(x > 0, \"x must be positive\")\n"
               "    ^\n"));
    x[5] = 6;   /* masked off (6 > 6 is false): passes */
    CHECK(interpret(k, 2, slots, 1, &b, &out, err, sizeof err) == TRIC_OK);
    /* without debug the PTX has no assertion; with it, __assertfail */
    const char *ptx = tric_kernel_ptx(k);
    CHECK(ptx && !strstr(ptx, "__assertfail"));
    tric_kernel_free(k);

    k = compile("k5.py", k5_src, "k5", "i32", "sm_80", 0);
    if (!k) return;
    uint64_t n = 1;
    CHECK(interpret(k, 3, &n, 0, NULL, &out, err, sizeof err) == TRIC_ERR_INTERPRET);
    CHECK(same("k5 error", err,
               "k5.py:6:5: error: device assertion failed in program (1, 0, 0)\n"
               "    assert tl.program_id(0) < n\n"
               "    ^\n"));
    CHECK(out.calls == 0);
    tric_kernel_free(k);

    /* a false tl.assume is undefined behaviour on the GPU; the interpreter
     * stops there */
    k = compile("k6.py", k6_src, "k6", "i32", "sm_80", 0);
    if (!k) return;
    n = 2;
    CHECK(interpret(k, 2, &n, 0, NULL, &out, err, sizeof err) == TRIC_OK);
    CHECK(interpret(k, 3, &n, 0, NULL, &out, err, sizeof err) == TRIC_ERR_INTERPRET);
    CHECK(same("k6 error", err,
               "k6.py:6:5: error: tl.assume condition is false in program (2, 0, 0)\n"
               "    tl.assume(n - tl.program_id(0) > 0)\n"
               "    ^\n"));
    tric_kernel_free(k);
}

static void test_ptxas(void) {
    if (!ptxas_path()) printf("test_print: no ptxas at /usr/local/cuda/bin, PTX not assembled\n");
    static const char *const archs[] = {"sm_80", "sm_90a"};
    struct {
        const char *path, *src, *kernel, *sig;
    } ks[] = {
        {"k1.py", k1_src, "k1", "*fp32, 256"},
        {"k2.py", k2_src, "k2", "*i32"},
        {"k3.py", k3_src, "k3", "i1, i8, i16, i32, i64, u8, u16, u32, u64, fp16, bf16, fp32, fp64, *fp8e5"},
        {"k4.py", k4_src, "k4", "*fp32, 1024"},
        {"k5.py", k5_src, "k5", "i32"},
        {"k6.py", k6_src, "k6", "i32"},
    };
    for (size_t a = 0; a < 2; a++)
        for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
            for (int debug = 0; debug < 2; debug++) {
                tric_kernel *k = compile(ks[i].path, ks[i].src, ks[i].kernel, ks[i].sig, archs[a], debug);
                if (!k) continue;
                const char *ptx = tric_kernel_ptx(k);
                CHECK(ptxas_accepts(ptx, archs[a], ks[i].kernel));
                bool asserts = i >= 3 && i <= 4;   /* k6 has a tl.assume: no code, even with debug */
                CHECK(!strstr(ptx, "call __assertfail") == !(asserts && debug));
                tric_kernel_free(k);
            }
}

int main(void) {
    setenv("TRIC_CACHE_DIR", "off", 1);
    test_two_programs();
    test_2d();
    test_dtypes();
    test_assert();
    test_ptxas();
    return failures != 0;
}
