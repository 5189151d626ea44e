/* A shared object's initialisers run after dlopen returns (worker_dlinit.c). */
#ifndef ICUDA_WORKER_DLINIT_H
#define ICUDA_WORKER_DLINIT_H

/* Renames the init array's tags of the object at path so that dlopen does
 * not run it: 1 when its initialisers are deferred (now or before), 0 when
 * it has none, -1 when the file cannot be read or changed (it then loads
 * as any object does). */
int dlinit_defer(const char *path);

/* Runs, in order, the initialisers dlinit_defer kept from dlopen, for an
 * object just loaded. */
void dlinit_run(void *handle);

#endif
