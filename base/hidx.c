/* Hash indexes over arrays the caller keeps (base.h). */
#include "base.h"

HashIdx *hidx_new(Arena *a, uint32_t n) {
    uint32_t size = 16;
    while (size < 2 * n) size *= 2;
    HashIdx *h = arena_alloc(a, sizeof *h + sizeof(uint32_t) * size);
    h->size = size;
    return h;
}

bool hidx_reserve(HashIdx **h, Arena *a, uint32_t more, uint32_t total) {
    if (*h && 2 * ((*h)->used + more) <= (*h)->size) return false;
    *h = hidx_new(a, 2 * total);
    return true;
}

void hidx_put(HashIdx *h, uint32_t hash, uint32_t k) {
    TRIC_ASSERT(2 * (h->used + 1) <= h->size);
    uint32_t i = hash & (h->size - 1);
    while (h->slot[i]) i = (i + 1) & (h->size - 1);
    h->slot[i] = k + 1;
    h->used++;
}

/* the high half of a multiplication by 2^64 / phi: every input bit reaches
 * the bits the table masks */
uint32_t hash_u64(uint64_t x) { return (uint32_t)((x * 0x9E3779B97F4A7C15ull) >> 32); }

uint32_t hash_ptr(const void *p) { return hash_u64((uint64_t)(uintptr_t)p); }

uint32_t hash_str(const char *s) {   /* FNV-1a */
    uint32_t h = 2166136261u;
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}
