/* .incbin pulls the files in at assembly time; paths are relative to the
 * repository root, where make runs the compiler. */
#include "logos.h"

#define EMBED(sym, path)                                                        \
    __asm__(".section .rodata\n"                                                \
            ".balign 16\n"                                                      \
            ".global " #sym "\n" #sym ":\n"                                    \
            ".incbin \"" path "\"\n"                                            \
            ".global " #sym "_end\n" #sym "_end:\n"                             \
            ".byte 0\n"                                                         \
            ".previous\n");                                                     \
    extern const unsigned char sym[], sym##_end[];

EMBED(icuda_logo_32, "kernelspec/logo-32x32.png")
EMBED(icuda_logo_64, "kernelspec/logo-64x64.png")
EMBED(icuda_logo_svg, "kernelspec/logo-svg.svg")

const logo_file_t *logos(size_t *n) {
    static logo_file_t files[3];
    files[0] = (logo_file_t){"logo-32x32.png", icuda_logo_32, (size_t)(icuda_logo_32_end - icuda_logo_32)};
    files[1] = (logo_file_t){"logo-64x64.png", icuda_logo_64, (size_t)(icuda_logo_64_end - icuda_logo_64)};
    files[2] = (logo_file_t){"logo-svg.svg", icuda_logo_svg, (size_t)(icuda_logo_svg_end - icuda_logo_svg)};
    *n = 3;
    return files;
}
