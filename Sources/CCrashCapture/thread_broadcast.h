#ifndef LCC_THREAD_BROADCAST_H
#define LCC_THREAD_BROADCAST_H

#include <signal.h>

/// Runs inside a signal handler on the thread asked.
typedef void (*lcc_thread_callback)(int signo, siginfo_t *info, void *context);

/// Runs `callback` on every other thread that can take SIGPROF, one at a time, waiting up to
/// `timeout_ms` for each. Returns how many answered, or -1.
int lcc_broadcast_to_other_threads(lcc_thread_callback callback, int timeout_ms);

#endif
