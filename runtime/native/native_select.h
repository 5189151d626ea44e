/* Which of the session's things a native cell's unit takes
 * (native_select.c): the earlier native cells' and interpreted cells'
 * definitions the cell names, directly or through one another; #includes
 * but Thrust's and CUB's (seconds to compile), which come only for a cell
 * that names them (or their THRUST_ and CUB_ macros) or takes something of
 * a cell that included them;
 * macros by name. So a cell that uses nothing heavy compiles in about a
 * second, whatever came before it. */
#ifndef ICUDA_NATIVE_SELECT_H
#define ICUDA_NATIVE_SELECT_H

#include <stdbool.h>

#include "native_session.h"

typedef struct {
    bool *prelude; /* per entry of ns->prelude */
    bool *host;    /* per entry of ns->host */
} native_selection_t;

void native_select(const native_session_t *ns, const char *code, native_selection_t *sel);
void native_selection_free(native_selection_t *sel);

#endif
