/* Progress lines (progress.h): shown by a timer thread or by the caller's
 * updates, through cell_io_t's display_as. */
#include "progress.h"

#include "xalloc.h"
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct progress {
    const cell_io_t *io;
    char id[64];
    char text[512];
    struct timespec t0;
    int delay_ms;
    bool shown, timer, done;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

static atomic_uint next_id; /* display ids are unique in the process */

double progress_elapsed(const progress_t *p) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (t.tv_sec - p->t0.tv_sec) + (t.tv_nsec - p->t0.tv_nsec) / 1e9;
}

static void send(progress_t *p, const char *text, bool update) {
    if (!p->io || !p->io->display_as) return;
    json_t *data = json_pack("{s:s}", "text/plain", text);
    if (data) p->io->display_as(p->io->ctx, p->id, update, data, NULL);
    json_decref(data);
}

static void *waiter(void *arg) {
    progress_t *p = arg;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += p->delay_ms / 1000;
    until.tv_nsec += (long)(p->delay_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&p->mu);
    while (!p->done && pthread_cond_timedwait(&p->cv, &p->mu, &until) == 0) {}
    if (!p->done) {
        send(p, p->text, false);
        p->shown = true;
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static int delay_ms(void) {
    const char *v = getenv("ICUDA_PROGRESS_MS");
    char *end;
    long d = v && *v ? strtol(v, &end, 10) : 500;
    return v && *v && (*end || d < 0) ? 500 : (int)d;
}

progress_t *progress_start(const cell_io_t *io, bool timer, const char *fmt, ...) {
    progress_t *p = xcalloc(1, sizeof *p);
    p->io = io;
    snprintf(p->id, sizeof p->id, "icuda-progress-%d-%u", (int)getpid(), atomic_fetch_add(&next_id, 1));
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->text, sizeof p->text, fmt, ap);
    va_end(ap);
    clock_gettime(CLOCK_MONOTONIC, &p->t0);
    p->delay_ms = delay_ms();
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->timer = timer && io && io->display_as && pthread_create(&p->th, NULL, waiter, p) == 0;
    return p;
}

void progress_update(progress_t *p, const char *fmt, ...) {
    if (!p || p->timer) return; /* a timer's line is the thread's until progress_done */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->text, sizeof p->text, fmt, ap);
    va_end(ap);
    if (progress_elapsed(p) * 1000 < p->delay_ms) return;
    send(p, p->text, p->shown);
    p->shown = true;
}

void progress_done(progress_t *p, const char *fmt, ...) {
    if (!p) return;
    if (p->timer) {
        pthread_mutex_lock(&p->mu);
        p->done = true;
        pthread_cond_signal(&p->cv);
        pthread_mutex_unlock(&p->mu);
        pthread_join(p->th, NULL);
    }
    if (p->shown) {
        char text[512] = "";
        if (fmt) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(text, sizeof text, fmt, ap);
            va_end(ap);
        }
        send(p, text, true);
    }
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    free(p);
}
