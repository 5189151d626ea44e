/* Heartbeat echo loop. It ends on ETERM, i.e. when the main thread calls
 * zmq_ctx_shutdown at exit. */
#include "heartbeat.h"

#include <errno.h>
#include <zmq.h>

#include "log.h"

static void *heartbeat_loop(void *arg) {
    void *sock = arg;
    for (;;) {
        zmq_msg_t m;
        zmq_msg_init(&m);
        if (zmq_msg_recv(&m, sock, 0) < 0) {
            zmq_msg_close(&m);
            if (errno == EINTR) continue;
            break; /* ETERM: the kernel is exiting */
        }
        int more = zmq_msg_more(&m);
        /* REP must answer before it may receive again: retry on EINTR. */
        while (zmq_msg_send(&m, sock, more ? ZMQ_SNDMORE : 0) < 0) {
            if (errno == EINTR) continue;
            zmq_msg_close(&m);
            goto out;
        }
    }
out:
    zmq_close(sock);
    return NULL;
}

int heartbeat_start(void *sock, pthread_t *thread) {
    int rc = pthread_create(thread, NULL, heartbeat_loop, sock);
    if (rc) log_msg("cannot start the heartbeat thread");
    return rc ? -1 : 0;
}
