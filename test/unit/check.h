/* The unit tests' one assertion: CHECK(cond) reports file:line and the
 * condition, counts the failure and goes on; main returns failures != 0. */
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

#endif
