/* gcc's precompiled header for the host compile of a unit built by nvcc's
 * steps (nvcc_steps.h). A unit whose headers come first, closed by the line
 * NVCC_PCH_MARKER, has a host text (cudafe++'s .cudafe1.cpp) whose part up
 * to that line is the same for every unit with the same headers, options
 * and module id; parsing that part is most of the host compile of a unit
 * that includes Thrust or CUB. So:
 *
 * - the module id of such a unit is named by its #include lines alone
 *   (nvcc_pch_module_hash), not by all of its text, so that the part is
 *   the same across units that include the same; each unit is its own
 *   shared object, loaded as its own module, so a name two of them share
 *   is never linked across them (a unit built for linking with others, -rdc,
 *   keeps an id of its own);
 * - the part, when large, is compiled once into a precompiled header under
 *   ROOT/KEY/ (KEY: the part's text and the compile's options), in the
 *   background beside the build that first meets it, written under a
 *   temporary name and renamed when whole;
 * - a later build with the same part compiles `#include "ROOT/KEY/prefix.h"`
 *   followed by the rest. gcc reads prefix.h.gch beside it; a .gch gcc
 *   cannot use (another gcc, damaged) is ignored by gcc, which then reads
 *   prefix.h itself: the same text, only slower.
 *
 * At most NVCC_PCH_KEEP headers are kept (each can be 100-200 MB), the least
 * recently used removed first. */
#ifndef ICUDA_NVCC_PCH_H
#define ICUDA_NVCC_PCH_H

#include <stdbool.h>
#include <stddef.h>

/* The line a unit writes after its headers (a declaration cudafe++ writes
 * back on a line of its own). */
#define NVCC_PCH_MARKER "struct icuda_headers_end;"

#define NVCC_PCH_KEEP 2
#define NVCC_PCH_MIN_BYTES ((size_t)4 << 20) /* a smaller part compiles in well under a second */

/* Set to "0": no precompiled header is made or used. */
#define NVCC_PCH_ENV "ICUDA_NVCC_PCH"

/* 16 hex digits naming unit's #include lines before NVCC_PCH_MARKER, in
 * their order, each once; false (hex untouched) when unit has no marker. */
bool nvcc_pch_module_hash(const char *unit, char hex[17]);

typedef enum {
    NVCC_PCH_NONE,     /* no marker, or the part is small: compiled as it is */
    NVCC_PCH_USED,     /* *input names the file to compile instead */
    NVCC_PCH_BUILDING, /* started in the background for a later build */
    NVCC_PCH_PENDING,  /* another build is making it */
} nvcc_pch_status_t;

/* Before a host compile. argv: its words (NULL-terminated), with the
 * .cudafe1.cpp it compiles among them, as nvcc wrote them, run in dir;
 * root: the headers' folder; may_build: a background compile may start.
 * With NVCC_PCH_USED, *input (malloc'd) replaces that word. */
nvcc_pch_status_t nvcc_pch_prepare(char *const *argv, const char *dir, const char *root, bool may_build,
                                   char **input);

/* The word of argv that names the host text (…cudafe1.cpp), or -1. */
int nvcc_pch_input_word(char *const *argv);

#endif
