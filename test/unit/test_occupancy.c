/* The occupancy model and the register cap the runtime asks the JIT for
 * (runtime/occupancy.c), on the limits of an H100 and of an sm_86 card. */
#include "base/base.h"
#include "runtime/rt.h"

#include "check.h"

static const RtSmLimits h100 = {65536, 2048, 32, 233472, 1024};
static const RtSmLimits sm86 = {65536, 1536, 16, 102400, 1024};

int main(void) {
    /* layer norm, 8 warps: 36 registers hold 6 CTAs (75%), 32 hold 8 */
    CHECK(rt_ctas_per_sm(&h100, 36, 256, 0) == 6);
    CHECK(rt_ctas_per_sm(&h100, 32, 256, 0) == 8);
    CHECK(rt_register_cap(&h100, 36, 256, 0) == 32);
    /* already at the thread limit: nothing to gain */
    CHECK(rt_register_cap(&h100, 32, 256, 0) == 0);
    CHECK(rt_register_cap(&h100, 24, 128, 0) == 0);
    /* softmax 16384, 16 warps: 60 registers hold 2; 3 would need 40, too far */
    CHECK(rt_ctas_per_sm(&h100, 60, 512, 0) == 2);
    CHECK(rt_register_cap(&h100, 60, 512, 0) == 0);
    /* 4 warps at 40 registers: 12 CTAs; every count from 33 rounds to the same 1280 per warp */
    CHECK(rt_ctas_per_sm(&h100, 40, 128, 0) == 12);
    CHECK(rt_ctas_per_sm(&h100, 33, 128, 0) == 12);
    CHECK(rt_register_cap(&h100, 40, 128, 0) == 32);
    /* shared memory is the limit: fewer registers change nothing */
    CHECK(rt_ctas_per_sm(&h100, 36, 256, 40000) == 5);
    CHECK(rt_register_cap(&h100, 36, 256, 40000) == 0);
    /* 1536 threads per SM: 48 registers hold 5 CTAs of 256, 40 hold 6 */
    CHECK(rt_ctas_per_sm(&sm86, 48, 256, 0) == 5);
    CHECK(rt_register_cap(&sm86, 48, 256, 0) == 40);
    /* the block limit */
    CHECK(rt_ctas_per_sm(&sm86, 16, 32, 0) == 16);
    return failures != 0;
}
