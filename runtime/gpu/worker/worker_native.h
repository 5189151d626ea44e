/* Native C++ cells in the worker (worker_native.c): a cell's shared object
 * loaded, its code run by the loading, and what it defined reported. */
#ifndef ICUDA_WORKER_NATIVE_H
#define ICUDA_WORKER_NATIVE_H

#include <stddef.h>
#include <stdint.h>

/* Loads the object whose path starts args (len bytes: the CH_NATIVE_RUN
 * record's rest: the path, then nbinds names each followed by an 8-byte
 * value, registered first), which runs the cell. Fills v (v[0] the outcome, a ch_native_outcome,
 * v[1] how many globals it registered, v[2] the run's number) and the
 * report: one line per event, fields separated by tabs:
 *   V name type is_const is_kernel   a global (or a kernel) the cell defined
 *   E kind what                      an exception ended the cell's code
 *   R code                           its code returned code (not 0)
 *   L why                            the object could not be loaded
 * Returns the reply's result: 0, or CUDA_ERROR_INVALID_VALUE for a record
 * that does not read as one. */
int worker_native_run(const char *args, size_t len, uint32_t nbinds, uint64_t v[4], const char **payload,
                      size_t *plen);

/* The session's device range (its buffers' addresses), once reserved. */
void worker_native_session_range(uint64_t base, uint64_t size);

/* The shared arena (the interpreter's host memory), once mapped at the
 * kernel process's address; and whether p lies in it, noted then in the
 * cell's report for the kernel process to free (worker_main.c's free). */
void worker_native_host_range(uint64_t base, uint64_t size);
int worker_native_host_free(void *p);
/* glibc's own free, which the worker's free passes everything else on to
 * (glibc exports it; no header of its declares it) */
void __libc_free(void *p);

#endif
