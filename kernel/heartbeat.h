/* The heartbeat channel: a REP socket that echoes every message, on its own
 * thread, so a client sees the kernel alive even while a cell is busy. */
#ifndef ICUDA_HEARTBEAT_H
#define ICUDA_HEARTBEAT_H

#include <pthread.h>

/* Starts echoing on sock (already bound; the thread takes it over and closes
 * it). The thread ends when the zmq context is shut down. */
int heartbeat_start(void *sock, pthread_t *thread);

#endif
