/* Line magics (%name args) and cell magics (%%name args + body): the table,
 * and how a magic line reaches its handler. One file per magic family. */
#ifndef ICUDA_MAGICS_H
#define ICUDA_MAGICS_H

#include "runtime/base/cell_io.h"
typedef struct device_session device_session_t; /* runtime/device/device_session.h */

struct interp;
struct cuda_session;
struct measure_state;
struct native_session;

/* What a magic gets: handles to the parts of the session it may use, the
 * cell's output and name, and the engine's services as callbacks (the
 * magics sit below the engine and never call up into it). */
typedef struct magic_ctx {
    device_session_t *dev;
    struct interp *interp;
    struct cuda_session *cuda;
    struct native_session *native; /* native C++ cells (%%cxx, %rerun) */
    /* the magics' own state in the session (%timeit's peaks and
     * measurements: measure.h), made on first use, freed by magics_session_free */
    struct measure_state **measure;
    const cell_io_t *io;
    const char *cell_name;
    /* Runs code as the engine runs a cell (device items compile, host items
     * run in order, magics where they stand), with this cell's name and
     * output; for cell magics that wrap code (%%timeit, %%profile). The GPU
     * work is not synchronised at its end: the caller decides. 0 or -1. */
    int (*run)(struct magic_ctx *mc, const char *code, cell_error_t *err);
    /* %reset: forgets what cells defined (the engine's session_reset). */
    void (*reset_session)(struct magic_ctx *mc);
    void *engine; /* for run and reset_session only */
    /* The whole cell as typed, magic line included (NULL where unknown):
     * where a cell magic's body starts in it gives the body's lines. */
    const char *cell_code;
} magic_ctx_t;

typedef struct magic {
    const char *name;
    const char *usage;   /* "%ptx [--all] kernel" */
    const char *summary; /* one line for %lsmagic */
    const char *help;    /* the rest of %help name */
    int (*line)(magic_ctx_t *mc, const char *args, cell_error_t *err);
    int (*cell)(magic_ctx_t *mc, const char *args, const char *body, cell_error_t *err);
} magic_t;

/* Rows a listing magic (%heap, %who) shows; the rest are counted in a line
 * after the table (200,000 buffers made a 46 MB display). */
#define MAGIC_TABLE_ROWS 500

const magic_t *magic_table(int *count);
const magic_t *magic_find(const char *name);
char *magic_help_text(const magic_t *m);

/* line: "%name args" (also "%name?"). */
int magic_run_line(magic_ctx_t *mc, const char *line, cell_error_t *err);
/* code: a cell whose first line is "%%name args". */
int magic_run_cell(magic_ctx_t *mc, const char *code, cell_error_t *err);

/* A cell that defines main() (runtime/program/program_detect.h), run as %%program
 * with no options, after a one-line notice (magics/program.c). */
int magic_program_auto(magic_ctx_t *mc, const char *code, cell_error_t *err);

/* A usage error of a magic: ename UsageError, with its usage line. */
int magic_usage_error(const magic_t *m, cell_error_t *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Splits args on white space (double quotes group); returns argc. */
int magic_split_args(const char *args, char ***argv);
void magic_free_args(char **argv, int argc);

/* Drops the rows of interp_who that are not the user's (std::cout, ...). */
void magic_who_user_rows(json_t *rows);

/* Frees what the magics keep in the session (engine_free calls it). */
void magics_session_free(struct measure_state *measure);

extern const magic_t magic_lsmagic, magic_help, magic_nvrtc, magic_ptx, magic_header, magic_resources, magic_who,
    magic_devices, magic_device, magic_sass, magic_memcheck, magic_timeit, magic_roofline, magic_profile,
    magic_program;
extern const magic_t magic_plot, magic_hist, magic_heap, magic_free, magic_reset, magic_save, magic_load, magic_env,
    magic_time;
extern const magic_t magic_host_tier, magic_host; /* magics/host_tier.c */
extern const magic_t magic_cxx, magic_rerun;      /* magics/cxx.c */
extern const magic_t magic_include_path;          /* magics/include_path.c */

#endif
