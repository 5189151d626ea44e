/* What %profile's trace looks like between the worker and the client
 * (large payloads travel through the shared arena, not the channel).
 *
 * CH_PROFILE_START names an arena range (u.profile) that the client
 * allocated: a prof_blob_t header, then cap prof_record_t slots, then a name
 * area of names_cap bytes. The worker writes each activity record CUPTI
 * delivers into it as it comes, so whatever was delivered is still there for
 * the client to read if the worker dies before CH_PROFILE_STOP. The client
 * reads the blob only once the worker has answered CH_PROFILE_STOP or is
 * gone. */
#ifndef ICUDA_PROFILE_WIRE_H
#define ICUDA_PROFILE_WIRE_H

#include <stdint.h>

#define PROF_MAGIC 0x6963707275ull /* "icpru" */
#define PROF_MAX_DEVICES 16

enum prof_kind { PROF_KERNEL = 1, PROF_COPY, PROF_MEMSET };

/* Copy directions, from CUPTI's CUpti_ActivityMemcpyKind (arrays count as
 * device memory). */
enum prof_copy { PROF_HTOD = 1, PROF_DTOH, PROF_DTOD, PROF_HTOH, PROF_PTOP, PROF_COPY_OTHER };

/* One kernel, copy or memset, as CUPTI timed it (nanoseconds on CUPTI's
 * clock; start == end == 0 when CUPTI could not time it). */
typedef struct prof_record {
    uint8_t kind;        /* enum prof_kind */
    uint8_t copy;        /* enum prof_copy (copies) */
    uint8_t pad[2];
    uint32_t device;     /* device ordinal */
    uint32_t stream;     /* CUPTI's stream id (unique within a context) */
    uint32_t correlation; /* CUPTI's correlation id: launch order */
    uint64_t start, end;
    uint64_t bytes;      /* copies and memsets */
    int32_t grid[3], block[3];
    uint32_t registers;  /* per thread */
    int32_t static_shared, dynamic_shared; /* bytes per block */
    uint32_t name;       /* kernels: offset of the NUL-terminated name in the name area */
    uint32_t value;      /* memsets: the byte value */
    uint32_t pad2;
} prof_record_t;

typedef struct prof_blob {
    uint64_t magic;
    uint32_t cap;        /* record slots */
    uint32_t n;          /* records written */
    uint64_t left_out;   /* records that found no free slot */
    uint64_t dropped;    /* records CUPTI itself dropped */
    uint32_t names_cap, names_len;
    uint32_t ndefault;   /* the NULL stream of each device that has a context */
    struct { uint32_t device, stream; } default_stream[PROF_MAX_DEVICES];
    uint32_t cupti_version;
    uint64_t t_start, t_stop; /* CUPTI's clock when tracing started and stopped */
} prof_blob_t;

static inline prof_record_t *prof_records(prof_blob_t *b) { return (prof_record_t *)(b + 1); }
static inline char *prof_names(prof_blob_t *b) { return (char *)(prof_records(b) + b->cap); }
static inline uint64_t prof_blob_size(uint32_t cap, uint32_t names_cap) {
    return sizeof(prof_blob_t) + (uint64_t)cap * sizeof(prof_record_t) + names_cap;
}

#endif
