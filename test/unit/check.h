/* The unit tests' assertions: CHECK(cond) reports file:line and the
 * condition, counts the failure and goes on; CHECK_MSG(cond, fmt, ...)
 * also says why, printf-style, on stdout next to the test's own output;
 * main returns failures != 0. */
#ifndef TRIC_TEST_CHECK_H
#define TRIC_TEST_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond)                                                                \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                            \
        }                                                                          \
    } while (0)

#define CHECK_MSG(cond, ...)                                                       \
    do {                                                                           \
        if (!(cond)) {                                                             \
            failures++;                                                            \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                 \
            printf(__VA_ARGS__);                                                   \
            printf("\n");                                                          \
        }                                                                          \
    } while (0)

#endif
