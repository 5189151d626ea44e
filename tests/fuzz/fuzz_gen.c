/* libFuzzer target: grammar-aware host programs. The input's bytes are the
 * choices of a generator that writes C from the language's grammar (types,
 * declarations, every operator, if/switch/loops, pointers, arrays,
 * structs, functions, printf), so libFuzzer's mutations change programs,
 * not characters; a choice past the input's end is 0, the simplest form, so
 * every input ends as a finished program. Variables are typed and declared
 * before use, so programs mostly parse and run; the rest is left to the
 * bytes (division, shifts and casts may well be undefined: the interpreter
 * must say so, not crash). Run as fuzz_interp runs cells
 * (interp_harness.h). FUZZ_GEN_PRINT=1 prints each program; at exit the
 * share of programs without a SyntaxError is printed. */
#include <stdint.h>
#include <stdio.h>

/* One generated program in 150 runs into the budget, and those took a third
 * of the time at 200 ms: whatever a loop covers, it covers in its first
 * milliseconds (docs/reliability.md). */
#define HARNESS_BUDGET_MS 50
#include "interp_harness.h"
#include "program_gen.h"

static unsigned long programs, syntax_errors, clean;
static void report(void) {
    if (programs)
        fprintf(stderr, "fuzz_gen: %lu programs, %lu SyntaxError (%.1f%% parse), %lu ran without any error (%.1f%%)\n",
                programs, syntax_errors, 100.0 * (double)(programs - syntax_errors) / (double)programs, clean,
                100.0 * (double)clean / (double)programs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n) {
    static bool print;
    if (!programs) {
        atexit(report);
        print = getenv("FUZZ_GEN_PRINT") != NULL;
    }
    char *code = generate(data, n);
    if (print) fprintf(stderr, "----\n%s", code);
    const char *e = harness_run(code);
    programs++;
    syntax_errors += !strcmp(e, "SyntaxError");
    clean += !*e;
    if (print && *e) fprintf(stderr, "=> %s: %s\n", e, harness_evalue);
    free(code);
    return 0;
}
