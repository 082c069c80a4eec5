// SIGTERM marker handler.
//
// Calls made inside the handler, all async-signal-safe per POSIX.1-2008 XSH 2.4.3
// (signal-safety(7)): open(2), close(2), sigaction(2), raise(3). No allocation, no locks.
#define _GNU_SOURCE
#include "CCrashCapture.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static char marker_path[4096];
static struct sigaction previous_action;
static volatile sig_atomic_t installed = 0;

static void term_marker_handler(int signo, siginfo_t *info, void *context) {
  int fd = open(marker_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd >= 0) close(fd);
  if (previous_action.sa_flags & SA_SIGINFO) {
    if (previous_action.sa_sigaction) previous_action.sa_sigaction(signo, info, context);
    return;
  }
  if (previous_action.sa_handler != SIG_DFL && previous_action.sa_handler != SIG_IGN) {
    previous_action.sa_handler(signo);
    return;
  }
  // Default: terminate by the same signal, so the parent still sees SIGTERM.
  sigaction(SIGTERM, &previous_action, NULL);
  raise(SIGTERM);
}

int lcc_term_marker_install(const char *path) {
  size_t length = strlen(path);
  if (length >= sizeof(marker_path)) {
    errno = ENAMETOOLONG;
    return -1;
  }
  struct sigaction current;
  if (sigaction(SIGTERM, NULL, &current) != 0) return -1;
  if (!(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_IGN) return 0;
  if (installed) lcc_term_marker_uninstall();
  memcpy(marker_path, path, length + 1);
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = term_marker_handler;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGTERM, &action, &previous_action) != 0) return -1;
  installed = 1;
  return 0;
}

void lcc_term_marker_uninstall(void) {
  if (!installed) return;
  sigaction(SIGTERM, &previous_action, NULL);
  installed = 0;
}
