/* GPU smoke test of the runtime's driver layer alone, independent of the
 * compiler: loads a hand-written PTX vector add through rt_module_get,
 * launches it, checks the result, times it, and checks that a bad PTX comes
 * back with the JIT error log. On a machine with several GPUs it runs the
 * add on each, with a module per context and memory on that device (a
 * module launched outside its own context would fail). Exit 0 = pass;
 * 77 = no GPU here. Built by `make build/driver_smoke`; run by gpu-test.
 */
#include <stdio.h>
#include <string.h>

#include "runtime/rt.h"

static const char add_ptx[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry add(.param .u64 px, .param .u64 py, .param .u64 pout, .param .u32 n)\n{\n"
    "  .reg .pred %p<2>; .reg .b32 %r<6>; .reg .f32 %f<4>; .reg .b64 %rd<12>;\n"
    "  ld.param.u64 %rd1, [px]; ld.param.u64 %rd2, [py]; ld.param.u64 %rd3, [pout]; ld.param.u32 %r1, [n];\n"
    "  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x; mad.lo.s32 %r5, %r2, %r3, %r4;\n"
    "  setp.ge.s32 %p1, %r5, %r1; @%p1 bra DONE;\n"
    "  cvta.to.global.u64 %rd1, %rd1; cvta.to.global.u64 %rd2, %rd2; cvta.to.global.u64 %rd3, %rd3;\n"
    "  mul.wide.s32 %rd4, %r5, 4; add.s64 %rd5, %rd1, %rd4; add.s64 %rd6, %rd2, %rd4; add.s64 %rd7, %rd3, %rd4;\n"
    "  ld.global.f32 %f1, [%rd5]; ld.global.f32 %f2, [%rd6]; add.f32 %f3, %f1, %f2; st.global.f32 [%rd7], %f3;\n"
    "DONE:\n  ret;\n}\n";

static int check(int st, Buf *err, const char *what) {
    if (st) fprintf(stderr, "driver_smoke: %s failed (%d): %s\n", what, st, err->data ? err->data : "");
    return st;
}

/* x + y on the current device (device d) through its module in *loaded */
static int add_on_device(int d, RtModule **loaded, float *ms, Buf *err) {
    enum { N = 100000 };
    static float x[N], y[N], out[N];
    for (int i = 0; i < N; i++) x[i] = (float)i, y[i] = 2.0f + (float)d, out[i] = 0;
    RtModule *m;
    uint64_t dx, dy, dout;
    unsigned n = N;
    if (check(rt_module_get(loaded, add_ptx, 0, "add", 0, 128, &m, err), err, "load") ||
        check(rt_mem_alloc(&dx, sizeof x, err), err, "alloc") || check(rt_mem_alloc(&dy, sizeof y, err), err, "alloc") ||
        check(rt_mem_alloc(&dout, sizeof out, err), err, "alloc") ||
        check(rt_memcpy_htod(dx, x, sizeof x, err), err, "htod") || check(rt_memcpy_htod(dy, y, sizeof y, err), err, "htod"))
        return 1;
    void *args[] = {&dx, &dy, &dout, &n};
    if (check(rt_module_launch(m, (N + 255) / 256, 1, 1, 256, args, NULL, false, err), err, "launch") ||
        check(rt_synchronize(err), err, "sync") || check(rt_memcpy_dtoh(out, dout, sizeof out, err), err, "dtoh") ||
        check(rt_module_time(m, (N + 255) / 256, 1, 1, 256, args, NULL, 10, ms, err), err, "time"))
        return 1;
    for (int i = 0; i < N; i++)
        if (out[i] != (float)i + 2.0f + (float)d) {
            fprintf(stderr, "driver_smoke: device %d: out[%d] = %g\n", d, i, out[i]);
            return 1;
        }
    rt_mem_free(dx, err);
    rt_mem_free(dy, err);
    rt_mem_free(dout, err);
    return 0;
}

int main(void) {
    Buf err = {0};
    Target t;
    int st = rt_device_arch(&t, &err);
    if (st == TRIC_ERR_NO_DRIVER) {
        printf("driver_smoke: no GPU (%s)\n", err.data);
        buf_free(&err);
        return 77;
    }
    if (check(st, &err, "rt_device_arch")) return 1;
    int n_devices = 0;
    if (check(rt_device_count(&n_devices, &err), &err, "rt_device_count")) return 1;
    RtModule *loaded = NULL;
    float ms = 0;
    for (int d = n_devices - 1; d >= 0; d--)   /* device 0 last: the timing is its */
        if (check(rt_set_device(d, &err), &err, "rt_set_device") || add_on_device(d, &loaded, &ms, &err)) return 1;
    rt_module_unload_all(loaded);
    /* a PTX error must name the call and carry ptxas' message */
    RtModule *bad_chain = NULL, *bad;
    st = rt_module_get(&bad_chain, ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k() { bogus; }\n", 0,
                       "k", 0, 32, &bad, &err);
    /* cuModuleLoadDataEx, or cuLinkAddData where the JIT cache is on */
    if (st != TRIC_ERR_CUDA || !strstr(err.data, " failed: CUDA_ERROR_INVALID_PTX") ||
        !strstr(err.data, "JIT error log:")) {
        fprintf(stderr, "driver_smoke: bad PTX gave %d: %s\n", st, err.data ? err.data : "");
        return 1;
    }
    printf("driver_smoke: sm_%d%s ok on %d device(s), %.4f ms per launch; bad PTX reports:\n%s\n", t.sm,
           t.arch_a ? "a" : "", n_devices, ms, err.data);
    buf_free(&err);
    return 0;
}
