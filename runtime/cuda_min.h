/* The few CUDA driver API types and constants the runtime needs, declared
 * here so that tric builds with a C toolchain alone (no cuda.h). Values are
 * those of CUDA 13.0's cuda.h; the driver ABI keeps them stable. Functions
 * are reached through cuGetProcAddress_v2 (driver.c), never linked. */
#ifndef TRIC_CUDA_MIN_H
#define TRIC_CUDA_MIN_H

#include <stddef.h>
#include <stdint.h>

typedef int CUresult;                    /* enum cudaError_enum */
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;  /* CUdeviceptr_v2 */
typedef uint64_t cuuint64_t;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef int CUjit_option;
typedef struct CUlinkState_st *CUlinkState;
enum { CU_JIT_INPUT_PTX = 1 };
typedef int CUdevice_attribute;
typedef int CUfunction_attribute;
typedef int CUdriverProcAddressQueryResult;
typedef uint32_t cuuint32_t;
typedef struct CUtensorMap_st {
    _Alignas(64) uint64_t opaque[16];
} CUtensorMap;

/* CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,
 * CUtensorMapFloatOOBfill (the data types are ir/tmap.h's TMAP_*) */
enum { CU_TENSOR_MAP_INTERLEAVE_NONE = 0 };
enum { CU_TENSOR_MAP_SWIZZLE_NONE = 0, CU_TENSOR_MAP_SWIZZLE_32B, CU_TENSOR_MAP_SWIZZLE_64B, CU_TENSOR_MAP_SWIZZLE_128B };
enum { CU_TENSOR_MAP_L2_PROMOTION_L2_128B = 2 };
enum { CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0, CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA = 1 };

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_NO_DEVICE = 100,
};

/* CUjit_option */
enum {
    CU_JIT_INFO_LOG_BUFFER = 3,
    CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
    CU_JIT_ERROR_LOG_BUFFER = 5,
    CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
    CU_JIT_LOG_VERBOSE = 12,
};

/* CUdevice_attribute */
enum {
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81,
    CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR = 82,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR = 106,
    CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK = 111,
};

/* CUfunction_attribute */
enum {
    CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
    CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
};

enum { CU_EVENT_DEFAULT = 0 };
enum { CU_GET_PROC_ADDRESS_DEFAULT = 0 };
enum { CU_GET_PROC_ADDRESS_SUCCESS = 0 };

#endif
