/* The parent pid jupyter_client named, and whether we are still its child
 * (parent_watch.h). */
#include "parent_watch.h"

#include <stdlib.h>
#include <unistd.h>

pid_t parent_watch_pid(void) {
    const char *v = getenv("JPY_PARENT_PID");
    char *end;
    long p = v ? strtol(v, &end, 10) : 0;
    if (!v || *end || p <= 1) return 0;
    return (pid_t)p == getppid() ? (pid_t)p : 0;
}

bool parent_watch_gone(pid_t pid) { return pid > 0 && getppid() != pid; }
