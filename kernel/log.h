/* Log lines of the kernel process: one line each on stderr, prefixed
 * "[icuda] ", so that a notebook server's log says where they came from. */
#ifndef ICUDA_LOG_H
#define ICUDA_LOG_H

void log_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
