/* Ending with the process that started us, as ipykernel does: jupyter_client
 * puts its pid in JPY_PARENT_PID; when our parent is no longer that process
 * (it died and we were re-parented), the kernel shuts down instead of
 * living on, with its GPU worker, as an orphan. */
#ifndef ICUDA_PARENT_WATCH_H
#define ICUDA_PARENT_WATCH_H

#include <stdbool.h>
#include <sys/types.h>

/* The pid to watch: JPY_PARENT_PID when it is our parent now, else 0 (a
 * kernel started by hand, or with the variable inherited from elsewhere). */
pid_t parent_watch_pid(void);

/* True when pid was our parent and is no longer. */
bool parent_watch_gone(pid_t pid);

#endif
