/* Triton's Philox generator (frontend/random.c) against known answers:
 *  - tl.philox_impl on Random123's published Philox4x32-10 known-answer
 *    vectors (kat_vectors: counter 0 / key 0, all ones, the pi digits);
 *  - tl.randint4x / tl.randint / tl.rand with Triton's counter and key
 *    setup (offset low and high words, seed low and high words), 10 and 7
 *    rounds, i64 offsets and seeds including negative ones. The expected
 *    words come from an independent Python implementation written from the
 *    algorithm's description (run once; it also reproduces the three
 *    Random123 vectors), not from tric.
 * The kernels run on the interpreter (tric_interpret); the kernel test
 * blocks of kernels/random.py take the same code through every pass, the
 * PTX simulator and ptxas. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/tric.h"

#include "check.h"

static const char src[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "@triton.jit\n"
    "def kat(c_ptr, k_ptr, out_ptr, ROUNDS: tl.constexpr):\n"
    "    i = tl.arange(0, 4)\n"
    "    c0 = tl.load(c_ptr + i * 4)\n"
    "    c1 = tl.load(c_ptr + i * 4 + 1)\n"
    "    c2 = tl.load(c_ptr + i * 4 + 2)\n"
    "    c3 = tl.load(c_ptr + i * 4 + 3)\n"
    "    k0 = tl.load(k_ptr + i * 2)\n"
    "    k1 = tl.load(k_ptr + i * 2 + 1)\n"
    "    a, b, c, d = tl.philox_impl(c0, c1, c2, c3, k0, k1, ROUNDS)\n"
    "    tl.store(out_ptr + i * 4, a)\n"
    "    tl.store(out_ptr + i * 4 + 1, b)\n"
    "    tl.store(out_ptr + i * 4 + 2, c)\n"
    "    tl.store(out_ptr + i * 4 + 3, d)\n"
    "\n"
    "@triton.jit\n"
    "def streams(seed_ptr, off_ptr, out_ptr, one_ptr, u_ptr, ROUNDS: tl.constexpr):\n"
    "    i = tl.arange(0, 8)\n"
    "    seed = tl.load(seed_ptr + tl.program_id(0))\n"
    "    off = tl.load(off_ptr + i)\n"
    "    a, b, c, d = tl.randint4x(seed, off, n_rounds=ROUNDS)\n"
    "    tl.store(out_ptr + i * 4, a)\n"
    "    tl.store(out_ptr + i * 4 + 1, b)\n"
    "    tl.store(out_ptr + i * 4 + 2, c)\n"
    "    tl.store(out_ptr + i * 4 + 3, d)\n"
    "    tl.store(one_ptr + i, tl.randint(seed, off, ROUNDS))\n"
    "    tl.store(u_ptr + i, tl.rand(seed, off, ROUNDS))\n";

static tric_kernel *compile(const char *kernel, const char *sig) {
    tric_options opt = {.arch = "sm_80", .num_warps = 0, .num_stages = 0};
    tric_kernel *k = NULL;
    char *err = NULL;
    int st = tric_compile_source("random.py", src, kernel, sig, &opt, &k, &err);
    if (st) fprintf(stderr, "compile %s failed:\n%s", kernel, err ? err : "(no message)");
    CHECK(st == TRIC_OK);
    tric_free(err);
    return k;
}

/* Random123 kat_vectors, philox4x32 10: counter[4] key[2] -> output[4] */
static const uint32_t kat_vectors[3][10] = {
    {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
    {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d, 0x41c83b0e, 0xa20bc7c6,
     0x6d5451fd},
    {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09, 0x94fdcceb, 0x5001e420,
     0x24126ea1},
};

static void test_kat(void) {
    tric_kernel *k = compile("kat", "*u32, *u32, *u32, 10");
    if (!k) return;
    uint32_t ctr[16] = {0}, key[8] = {0}, out[16];
    for (int v = 0; v < 3; v++) {
        memcpy(ctr + 4 * v, kat_vectors[v], 16);
        memcpy(key + 2 * v, kat_vectors[v] + 4, 8);
    }
    memset(out, 0, sizeof out);
    uint64_t slots[3] = {(uint64_t)(uintptr_t)ctr, (uint64_t)(uintptr_t)key, (uint64_t)(uintptr_t)out};
    tric_host_buffer bufs[3] = {{ctr, sizeof ctr, "c", 0}, {key, sizeof key, "k", 0}, {out, sizeof out, "out", 0}};
    char *err = NULL;
    int st = tric_interpret(k, 1, 1, 1, slots, 3, bufs, &err);
    if (st) fprintf(stderr, "interpret failed:\n%s", err ? err : "(no message)");
    CHECK(st == TRIC_OK);
    for (int v = 0; v < 3; v++)
        for (int j = 0; j < 4; j++) {
            if (out[4 * v + j] != kat_vectors[v][6 + j])
                fprintf(stderr, "kat %d word %d: got %08x, expected %08x\n", v, j, out[4 * v + j], kat_vectors[v][6 + j]);
            CHECK(out[4 * v + j] == kat_vectors[v][6 + j]);
        }
    tric_free(err);
    tric_kernel_free(k);
}

/* randint4x(seed, offset) words for 10 and 7 rounds, from the Python model */
typedef struct Stream {
    int64_t seed, offset;
    uint32_t r10[4], r7[4];
} Stream;

static const Stream streams[] = {
    {0, 0, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}, {0x5f6fb709, 0x0d893f64, 0x4f121f81, 0x4f730a48}},
    {42, 0, {0x9ceaf053, 0x77f5493b, 0x12bf50ad, 0x5742b3d7}, {0x92cbc19a, 0xca38a8e0, 0x3263f2b4, 0x0153ad48}},
    {42, 1, {0xfcdb2127, 0x53ba6cfd, 0x838f5a6e, 0x744e06fb}, {0x5558d87a, 0xf753e825, 0xbd48f485, 0x7fe5a0fa}},
    {42, 7, {0x5bbd83b1, 0x68784c85, 0x172067aa, 0x2e6b75b7}, {0x5096b607, 0x2a359f54, 0x86fd95cb, 0xd91525b0}},
    {12345, 1000, {0xa7ec4720, 0x1e38b56f, 0x522e4595, 0xf694deb3}, {0xe32c0443, 0x27538ef0, 0x3918d837, 0x51a44d38}},
    {-1, 3, {0x8e8fd014, 0xae51ee73, 0x573ce1a9, 0x9392702f}, {0x871cde5f, 0xf1fd466d, 0xcdee1631, 0x19a9d031}},
    {0x123456789ABCDEF, (INT64_C(5) << 32) + 9, {0xd324c5d2, 0x98bc3773, 0xab1c07a9, 0xe0960a9a},
     {0x12472506, 0xf8fc5456, 0xfb99aec2, 0xd1758fb1}},
    {42, -2, {0x1873f302, 0x5d269a90, 0x9c6307b6, 0x38da02b2}, {0x964716d8, 0xf1f48895, 0x4ea03e2d, 0xe878a027}},
};

/* Triton's uint_to_uniform_float of a 32-bit word, in f32 */
static float uniform(uint32_t w) {
    int32_t x = (int32_t)w;
    if (x < 0) x = -x - 1;
    return (float)x * 4.6566127342e-10f;
}

/* Each program p runs its seed over all eight offsets; the stream whose
 * seed and offset both match is checked (one per program). */
static void test_streams(int rounds) {
    tric_kernel *k = compile("streams", rounds == 10 ? "*i64, *i64, *u32, *u32, *fp32, 10" : "*i64, *i64, *u32, *u32, *fp32, 7");
    if (!k) return;
    enum { N = 8 };
    int64_t seeds[N], offs[N];
    for (int s = 0; s < N; s++) {
        seeds[s] = streams[s].seed;
        offs[s] = streams[s].offset;
    }
    for (int p = 0; p < N; p++) {
        uint32_t out[4 * N], one[N];
        float u[N];
        int64_t seed_p[N];
        for (int s = 0; s < N; s++) seed_p[s] = seeds[p];
        uint64_t slots[5] = {(uint64_t)(uintptr_t)seed_p, (uint64_t)(uintptr_t)offs, (uint64_t)(uintptr_t)out,
                             (uint64_t)(uintptr_t)one, (uint64_t)(uintptr_t)u};
        tric_host_buffer bufs[5] = {{seed_p, sizeof seed_p, "seed", 0}, {offs, sizeof offs, "off", 0},
                                    {out, sizeof out, "out", 0}, {one, sizeof one, "one", 0}, {u, sizeof u, "u", 0}};
        char *err = NULL;
        int st = tric_interpret(k, 1, 1, 1, slots, 5, bufs, &err);
        if (st) fprintf(stderr, "interpret failed:\n%s", err ? err : "(no message)");
        CHECK(st == TRIC_OK);
        tric_free(err);
        const uint32_t *want = rounds == 10 ? streams[p].r10 : streams[p].r7;
        for (int j = 0; j < 4; j++) {
            if (out[4 * p + j] != want[j])
                fprintf(stderr, "seed %lld offset %lld rounds %d word %d: got %08x, expected %08x\n",
                        (long long)streams[p].seed, (long long)streams[p].offset, rounds, j, out[4 * p + j], want[j]);
            CHECK(out[4 * p + j] == want[j]);
        }
        CHECK(one[p] == want[0]);
        CHECK(u[p] == uniform(want[0]) && u[p] >= 0.0f && u[p] < 1.0f);
    }
    tric_kernel_free(k);
}

int main(void) {
    test_kat();
    test_streams(10);
    test_streams(7);
    /* the conversion's ends: 0 and INT32_MAX stay in [0, 1) */
    CHECK(uniform(0) == 0.0f && uniform(0xFFFFFFFF) == 0.0f && uniform(0x7FFFFFFF) < 1.0f);
    if (failures) fprintf(stderr, "%d failures\n", failures);
    return failures != 0;
}
