/* compute-sanitizer's text report (its --log-file), read into findings.
 *
 * The report is lines with a prefix ("=========" by default); a finding
 * starts with a line one space in ("Invalid __global__ write of size 4
 * bytes", "Error: Race reported between Write access at ...") and goes on
 * with indented lines: where ("at vecadd(double *, int)+0x70 in cell.cu:3"),
 * who ("by thread (232,0,0) in block (3,0,0)"), the address and the nearest
 * allocation, racecheck's other accesses ("and Read access at ... [4
 * hazards]"), backtraces. A bare prefix line ends it. The parser is
 * tolerant: lines it does not understand are kept as text, in the finding
 * they came with or among the report's other lines. */
#ifndef ICUDA_SANITIZER_LOG_H
#define ICUDA_SANITIZER_LOG_H

#include <stdbool.h>
#include <stdint.h>

#define SAN_MAX_SITES 8

/* One place in the code: where an access was made. */
typedef struct san_site {
    char access[32];     /* "Write access" (racecheck), "" otherwise */
    char function[512];  /* as the report names it (demangled, with parameters) */
    char file[256];      /* "" when the report gives none (no -lineinfo) */
    int line;            /* 0: unknown */
    uint64_t pc;         /* offset in the function */
    bool have_pc;
    long hazards;        /* racecheck's [N hazards], 0 otherwise */
} san_site_t;

typedef struct san_finding {
    char what[256];      /* the headline: "Invalid __global__ write of size 4 bytes" */
    san_site_t sites[SAN_MAX_SITES];
    int nsites;
    bool have_thread;
    unsigned thread[3], block[3];
    bool have_address;
    uint64_t address;
    char address_note[160]; /* "is out of bounds", "is misaligned" */
    bool have_nearest;
    uint64_t nearest_base, nearest_size;
    char nearest_rel[96];   /* "0 bytes after", "4 bytes before", "inside" */
    bool api;               /* "Program hit CUDA_ERROR_... on CUDA API call to ..." */
    char *detail;           /* the finding's other lines (backtraces ...), malloc'd, may be NULL */
} san_finding_t;

typedef struct san_log {
    san_finding_t *findings;
    int n, cap;
    int errors;          /* ERROR SUMMARY (or a tool's SUMMARY) count; -1 when absent */
    int not_printed;     /* errors past --print-limit */
    char summary[256];   /* the last "... SUMMARY: ..." line */
    char *other;         /* lines understood as no finding (malloc'd, may be NULL) */
} san_log_t;

void san_log_parse(const char *text, san_log_t *log);
void san_log_free(san_log_t *log);

/* Findings of one kind at one place (the same headline, function, file,
 * line and, for races, the same other accesses): the first in the report,
 * and how many there were. */
typedef struct san_group {
    const san_finding_t *first;
    int count;
} san_group_t;

/* Groups in order of first appearance; *out malloc'd. Returns how many. */
int san_log_group(const san_log_t *log, san_group_t **out);

/* Parses one "at ..." location (without the leading "at "). */
void san_parse_site(const char *s, san_site_t *site);

#endif
