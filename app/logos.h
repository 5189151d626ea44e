/* The kernelspec logos, embedded in the binary so that `icuda --install`
 * works from wherever the binary was copied (kernelspec/make-logos.py). */
#ifndef ICUDA_LOGOS_H
#define ICUDA_LOGOS_H

#include <stddef.h>

typedef struct logo_file {
    const char *name; /* file name in the kernelspec directory */
    const unsigned char *data;
    size_t len;
} logo_file_t;

/* The logo files; *n gets their count. */
const logo_file_t *logos(size_t *n);

#endif
