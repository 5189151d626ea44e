/* The kernel's sockets and threads. The main thread owns every zmq socket:
 * it always polls control, and polls shell only while no cell runs. Cells
 * (and the other requests that use the language) run on one executor
 * thread, which never touches a Jupyter socket: it hands signed frames to
 * the main thread through an inproc PAIR socket. The heartbeat echoes on a
 * thread of its own. Each request goes to its handler (handlers.h), which
 * answers through the request's port (request.h). */
#ifndef ICUDA_SERVER_H
#define ICUDA_SERVER_H

#include "connection.h"
#include "language.h"

/* Runs the kernel for the language until a shutdown_request; returns the
 * process exit status. lang is borrowed: the caller frees it afterwards. */
int server_main(const connection_t *conn, const language_t *lang);
/* The same from a connection file's path: 1 (and a log line) if it cannot
 * be read. */
int server_run(const char *connection_file, const language_t *lang);

#endif
