// SIGTERM during the launch: tells LaunchProtection that a stop was requested, then lets the
// signal do whatever it did before.
//
// Composition rules (other owners of SIGTERM: swift-service-lifecycle and Vapor through
// libdispatch's signal sources, an app's own handler):
// - install saves whatever is there and chains to it from the handler; it never trusts an
//   earlier install, since libdispatch's first signal source for SIGTERM replaces any handler
//   without chaining;
// - SIGTERM owned by libdispatch (its handler is the current one): ours goes in front of
//   libdispatch's, chaining to it, and the Swift side adds a Dispatch source of its own
//   (StopRequests.swift). libdispatch installs its handler once per process, on the first
//   source for a signal, and never again, so ours stays in front; the source covers a SIGTERM
//   that no handler sees (blocked in every thread, read straight from libdispatch's signalfd);
// - while armed, the watcher re-checks the owner (lcc_stop_signal_check): a handler installed
//   after ours without chaining, or libdispatch's, gets ours on top of it again, chaining to
//   it, at once (libdispatch's taking over also makes the Swift side add its source, which
//   needs libdispatch's manager thread to run before it is registered);
// - uninstall restores what was there only if our handler is still the current one: a
//   handler installed after ours is never replaced;
// - when what was there is the default action (termination), the handler does not terminate
//   by itself: it wakes the watcher thread, which records the stop durably and then ends the
//   process (lcc_die_by_signal: by SIGTERM, or exit status 143 as PID 1, where the kernel
//   drops a default-action SIGTERM the process sends itself).
//
// Calls made inside the handler, all async-signal-safe per POSIX.1-2008 XSH 2.4.3
// (signal-safety(7)): write(2) (to the watcher's pipe), nanosleep(2) (waiting, at most 1 s, for
// the watcher to record the stop before chaining to another handler), syscall(SYS_gettid)
// (gettid(2)), and on the chained-default path after the launch finished or after a recorded
// stop, sigaction(2), pthread_sigmask(3), raise(3) and _exit(2) (lcc_die_by_signal); plus
// whatever handler it chains to. Atomics are lock-free. No allocation, no locks.
#define _GNU_SOURCE
#include "CCrashCapture.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

// What our handler chains to. Two slots so the watcher can replace it (a handler installed
// after ours, now under ours) while a SIGTERM may be reading it: the new one is written to the
// unused slot, then published by switching `chain_slot`.
static struct sigaction chain_actions[2];
static _Atomic int chain_slot = 0;
// What was there before the handler we now chain to was installed over ours: that handler may
// chain back to ours (its saved previous action), and then we stand for this one.
static struct sigaction outer_action;
static _Atomic int has_outer_action = 0;
// The thread inside our handler while it calls the chained handler (0: none).
static _Atomic pid_t chaining_thread = 0;
// The launch is in progress: a SIGTERM now is a stop request to record.
static _Atomic int armed = 0;
static _Atomic int requested = 0;
// The watcher wrote the stop to the sentinel (lcc_stop_signal_recorded).
static _Atomic int recorded = 0;
static _Atomic int wake_write_fd = -1;
// A handler we chain to chained back to us while what we stood for was the default action:
// the watcher ends the process once the stop is recorded, as before that handler came.
static _Atomic int terminate_after_record = 0;

// Serialises install, check and uninstall (arm, the watcher's re-check and disarm run on
// different threads): a re-check that found a new owner can never put our handler back after
// the launch was disarmed, nor read `chain_actions` while an install rewrites them. Never
// taken by the signal handler.
static pthread_mutex_t owner_lock = PTHREAD_MUTEX_INITIALIZER;

// Who owns SIGTERM now (owner_of).
enum {
  LCC_SIGNAL_OWNER_DEFAULT = 0,
  LCC_SIGNAL_OWNER_IGNORED = 1,
  // LaunchProtection's stop handler.
  LCC_SIGNAL_OWNER_OURS = 2,
  // libdispatch: a Dispatch signal source was made for it (swift-service-lifecycle, Vapor).
  LCC_SIGNAL_OWNER_DISPATCH = 3,
  // Another handler (the app's own, or one we cannot name).
  LCC_SIGNAL_OWNER_HANDLER = 4,
};

static void stop_signal_handler(int signo, siginfo_t *info, void *context);

static int is_default(const struct sigaction *action) {
  return !(action->sa_flags & SA_SIGINFO) && action->sa_handler == SIG_DFL;
}

static int is_ignored(const struct sigaction *action) {
  return !(action->sa_flags & SA_SIGINFO) && action->sa_handler == SIG_IGN;
}

static void *handler_address(const struct sigaction *action) {
  return (action->sa_flags & SA_SIGINFO) ? (void *)action->sa_sigaction : (void *)action->sa_handler;
}

void lcc_die_by_signal(int signo) {
  struct sigaction fallback;
  memset(&fallback, 0, sizeof fallback);
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  sigaction(signo, &fallback, NULL);
  sigset_t unblock;
  sigemptyset(&unblock);
  sigaddset(&unblock, signo);
  pthread_sigmask(SIG_UNBLOCK, &unblock, NULL);
  raise(signo);
  // Still here: the kernel dropped it. PID 1 of a PID namespace (a container without an init)
  // only receives signals it has a handler for; end the way a container runtime reports a
  // death by that signal.
  _exit(128 + signo);
}

/// Who owns a signal whose current action is `current` (LCC_SIGNAL_OWNER_*).
static int owner_of(const struct sigaction *current) {
  if (is_default(current)) return LCC_SIGNAL_OWNER_DEFAULT;
  if (is_ignored(current)) return LCC_SIGNAL_OWNER_IGNORED;
  void *address = handler_address(current);
  if (address == (void *)stop_signal_handler) return LCC_SIGNAL_OWNER_OURS;
  // libdispatch's signal sources install `_dispatch_muxnote_signal_block_and_raise`, a
  // static function: dladdr names the object it lives in, libdispatch.so.
  Dl_info where;
  if (dladdr(address, &where) && where.dli_fname && strstr(where.dli_fname, "libdispatch")) {
    return LCC_SIGNAL_OWNER_DISPATCH;
  }
  return LCC_SIGNAL_OWNER_HANDLER;
}

static void call_action(const struct sigaction *action, int signo, siginfo_t *info, void *context) {
  if (action->sa_flags & SA_SIGINFO) {
    if (action->sa_sigaction) action->sa_sigaction(signo, info, context);
  } else if (action->sa_handler != SIG_DFL && action->sa_handler != SIG_IGN) {
    action->sa_handler(signo);
  } else if (action->sa_handler == SIG_DFL && !atomic_load(&armed)) {
    // Reached by chaining from a handler installed after ours, once the launch is over: the
    // action we stand for is the default one, termination.
    lcc_die_by_signal(signo);
  }
}

static void stop_signal_handler(int signo, siginfo_t *info, void *context) {
  int saved_errno = errno;
  pid_t self = (pid_t)syscall(SYS_gettid);
  if (atomic_load(&chaining_thread) == self) {
    // The handler we chain to chained back to us, its saved previous action: stand for what
    // was there before it (the stop is already being recorded).
    if (atomic_load(&has_outer_action)) {
      if (is_default(&outer_action) && atomic_load(&armed)) atomic_store(&terminate_after_record, 1);
      call_action(&outer_action, signo, info, context);
    }
    errno = saved_errno;
    return;
  }
  const struct sigaction *chained = &chain_actions[atomic_load(&chain_slot)];
  if (atomic_load(&armed)) {
    int first = 0;
    int fd = atomic_load(&wake_write_fd);
    int again = !atomic_compare_exchange_strong(&requested, &first, 1);
    if (!again && fd >= 0) {
      char byte = 'T';
      ssize_t ignored = write(fd, &byte, 1);
      (void)ignored;
    }
    if (is_default(chained)) {
      // A SIGTERM after the stop was recorded: the watcher is done with it, and may have
      // found it was not its to end (the handler then chained to went since); end as the
      // default action does.
      if (again && atomic_load(&recorded)) lcc_die_by_signal(signo);
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
  atomic_store(&chaining_thread, self);
  call_action(chained, signo, info, context);
  atomic_store(&chaining_thread, 0);
  errno = saved_errno;
}

/// Puts our handler in front of `current`, chaining to it.
static int install_over(const struct sigaction *current) {
  int slot = 1 - atomic_load(&chain_slot);
  chain_actions[slot] = *current;
  atomic_store(&chain_slot, slot);
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = stop_signal_handler;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  return sigaction(SIGTERM, &action, NULL);
}

static int install_locked(int wake_fd) {
  atomic_store(&wake_write_fd, wake_fd);
  atomic_store(&requested, 0);
  atomic_store(&recorded, 0);
  atomic_store(&has_outer_action, 0);
  atomic_store(&terminate_after_record, 0);
  atomic_store(&armed, 1);
  struct sigaction current;
  if (sigaction(SIGTERM, NULL, &current) != 0) return -1;
  switch (owner_of(&current)) {
    case LCC_SIGNAL_OWNER_OURS:
      // Another launch of this process is armed: ours stays. In front of libdispatch's, the
      // Swift side's source is wanted as on a first install (its signalfd is libdispatch's).
      return owner_of(&chain_actions[atomic_load(&chain_slot)]) == LCC_SIGNAL_OWNER_DISPATCH ? 2 : 0;
    case LCC_SIGNAL_OWNER_IGNORED: return 1;
    case LCC_SIGNAL_OWNER_DISPATCH:
      // In front of libdispatch's handler, chaining to it; the Swift side adds its source.
      (void)install_over(&current);
      return 2;
    default: break;
  }
  if (install_over(&current) != 0) {
    atomic_store(&armed, 0);
    return -1;
  }
  return 0;
}

int lcc_stop_signal_install(int wake_fd) {
  pthread_mutex_lock(&owner_lock);
  int result = install_locked(wake_fd);
  pthread_mutex_unlock(&owner_lock);
  return result;
}

static int check_locked(void) {
  if (!atomic_load(&armed)) return 0;
  // A stop was requested: the process is ending, and whoever owns SIGTERM now decides how.
  // Taking it back here once swallowed the end: an app's handler we chained to set the
  // default action and raised SIGTERM again (blocked until its handler returned), ours went
  // on top in between, and that SIGTERM reached ours, already past its one stop (a hung
  // start then outlived its stop timeout; systemd/hang-without-deadline-never-counts, once in
  // about 20 loaded runs of the suite).
  if (atomic_load(&requested)) return 0;
  struct sigaction current;
  if (sigaction(SIGTERM, NULL, &current) != 0) return -1;
  int owner = owner_of(&current);
  switch (owner) {
    case LCC_SIGNAL_OWNER_OURS: return 0;
    case LCC_SIGNAL_OWNER_IGNORED: return 1;
    default: break;
  }
  // A handler, libdispatch's or the default action was put in place of ours during the
  // launch: ours goes on top again and chains to it, from this moment on (libdispatch's hands
  // each SIGTERM to every Dispatch source). If it chains back to ours, we then stand for what
  // we chained to before.
  outer_action = chain_actions[atomic_load(&chain_slot)];
  atomic_store(&has_outer_action, 1);
  int installed = install_over(&current) == 0;
  if (owner == LCC_SIGNAL_OWNER_DISPATCH) return 2;  // the Swift side adds its source too
  return installed ? 3 : -1;
}

int lcc_stop_signal_check(void) {
  pthread_mutex_lock(&owner_lock);
  int result = check_locked();
  pthread_mutex_unlock(&owner_lock);
  return result;
}

static int uninstall_locked(void) {
  atomic_store(&armed, 0);
  struct sigaction current;
  if (sigaction(SIGTERM, NULL, &current) != 0) return -1;
  if (handler_address(&current) == (void *)stop_signal_handler) {
    sigaction(SIGTERM, &chain_actions[atomic_load(&chain_slot)], NULL);
    return 0;
  }
  // Someone installed a handler after ours: theirs stays. Ours stays reachable through their
  // chain and then only hands the signal on.
  return 1;
}

int lcc_stop_signal_uninstall(void) {
  pthread_mutex_lock(&owner_lock);
  int result = uninstall_locked();
  pthread_mutex_unlock(&owner_lock);
  return result;
}

int lcc_stop_signal_armed(void) { return atomic_load(&armed); }

void lcc_stop_signal_recorded(void) { atomic_store(&recorded, 1); }

int lcc_stop_signal_should_terminate(void) {
  return atomic_load(&requested) &&
         (is_default(&chain_actions[atomic_load(&chain_slot)]) || atomic_load(&terminate_after_record));
}

void lcc_stop_signal_terminate(void) {
  // Our handler ran in place of the default action (as the current handler, or chained to by
  // a later one that hands the signal on): termination is what the sender asked for.
  lcc_die_by_signal(SIGTERM);
}

int lcc_stop_signal_wait(int fd, long timeout_us) {
  struct pollfd descriptor = {.fd = fd, .events = POLLIN, .revents = 0};
  if (timeout_us < 0) return ppoll(&descriptor, 1, NULL, NULL);
  struct timespec timeout = {.tv_sec = timeout_us / 1000000, .tv_nsec = (timeout_us % 1000000) * 1000};
  return ppoll(&descriptor, 1, &timeout, NULL);
}
