// SIGTERM during the launch: tells LaunchProtection that a stop was requested, then lets the
// signal do whatever it did before.
//
// Composition rules (other owners of SIGTERM: swift-service-lifecycle through libdispatch's
// signal source, which installs its own handler and reads a signalfd; an app's own handler):
// - install saves whatever was there and chains to it from the handler;
// - uninstall restores it only if our handler is still the current one: a handler installed
//   after ours is never replaced;
// - when what was there is the default action (termination), the handler does not terminate
//   by itself: it wakes the watcher thread, which records the stop durably and then ends the
//   process by SIGTERM (`lcc_stop_signal_terminate`), so the parent still sees SIGTERM.
//
// Calls made inside the handler, all async-signal-safe per POSIX.1-2008 XSH 2.4.3
// (signal-safety(7)): write(2) (to the watcher's pipe), nanosleep(2) (waiting, at most 1 s, for
// the watcher to record the stop before chaining to another handler), sigaction(2),
// pthread_sigmask(3) and raise(3) (only on the chained-default path after the launch finished),
// plus whatever handler it chains to. Atomics are lock-free. No allocation, no locks.
#define _GNU_SOURCE
#include "CCrashCapture.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct sigaction previous_action;
static _Atomic int installed = 0;
// The launch is in progress: a SIGTERM now is a stop request to record.
static _Atomic int armed = 0;
static _Atomic int requested = 0;
// The watcher wrote the stop to the sentinel (lcc_stop_signal_recorded).
static _Atomic int recorded = 0;
static int wake_write_fd = -1;

static int previous_is_default(void) {
  return !(previous_action.sa_flags & SA_SIGINFO) && previous_action.sa_handler == SIG_DFL;
}

static void die_by_default_action(void) {
  struct sigaction fallback;
  memset(&fallback, 0, sizeof fallback);
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  sigaction(SIGTERM, &fallback, NULL);
  sigset_t unblock;
  sigemptyset(&unblock);
  sigaddset(&unblock, SIGTERM);
  pthread_sigmask(SIG_UNBLOCK, &unblock, NULL);
  raise(SIGTERM);
}

static void stop_signal_handler(int signo, siginfo_t *info, void *context) {
  int saved_errno = errno;
  if (atomic_load(&armed)) {
    int first = 0;
    if (atomic_compare_exchange_strong(&requested, &first, 1) && wake_write_fd >= 0) {
      char byte = 'T';
      ssize_t ignored = write(wake_write_fd, &byte, 1);
      (void)ignored;
    }
    if (previous_is_default()) {
      // The watcher records the stop, then ends the process (lcc_stop_signal_terminate).
      errno = saved_errno;
      return;
    }
    // The handler we chain to may end the process at once (an app's own "die now" handler):
    // let the stop reach the sentinel first, bounded so a watcher that cannot run never holds
    // the signal up for long (nanosleep: async-signal-safe).
    struct timespec pause = {0, 100000};
    for (int waited = 0; waited < 10000 && !atomic_load(&recorded); waited++) nanosleep(&pause, NULL);
  }
  if (previous_action.sa_flags & SA_SIGINFO) {
    if (previous_action.sa_sigaction) previous_action.sa_sigaction(signo, info, context);
  } else if (previous_action.sa_handler != SIG_DFL && previous_action.sa_handler != SIG_IGN) {
    previous_action.sa_handler(signo);
  } else if (previous_action.sa_handler == SIG_DFL) {
    // Reached by chaining from a handler installed after ours, once the launch is over: the
    // action we stand for is the default one, termination.
    die_by_default_action();
  }
  errno = saved_errno;
}

int lcc_stop_signal_install(int wake_fd) {
  if (atomic_load(&installed)) {
    // Another launch in this process (tests, a second organizer): same handler, armed again.
    wake_write_fd = wake_fd;
    atomic_store(&requested, 0);
    atomic_store(&recorded, 0);
    atomic_store(&armed, 1);
    return 0;
  }
  struct sigaction current;
  if (sigaction(SIGTERM, NULL, &current) != 0) return -1;
  if (!(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_IGN) return 1;
  wake_write_fd = wake_fd;
  atomic_store(&requested, 0);
  atomic_store(&recorded, 0);
  atomic_store(&armed, 1);
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = stop_signal_handler;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGTERM, &action, &previous_action) != 0) {
    atomic_store(&armed, 0);
    return -1;
  }
  atomic_store(&installed, 1);
  return 0;
}

int lcc_stop_signal_uninstall(void) {
  atomic_store(&armed, 0);
  if (!atomic_load(&installed)) return 0;
  struct sigaction current;
  if (sigaction(SIGTERM, NULL, &current) != 0) return -1;
  atomic_store(&installed, 0);
  if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == stop_signal_handler) {
    sigaction(SIGTERM, &previous_action, NULL);
    return 0;
  }
  // Someone installed a handler after ours: theirs stays. Ours stays reachable through their
  // chain and then only hands the signal on.
  return 1;
}

void lcc_stop_signal_recorded(void) { atomic_store(&recorded, 1); }

int lcc_stop_signal_should_terminate(void) { return atomic_load(&requested) && previous_is_default(); }

void lcc_stop_signal_terminate(void) {
  // Our handler ran in place of the default action (as the current handler, or chained to by
  // a later one that hands the signal on): termination is what the sender asked for.
  die_by_default_action();
}
