// Runs a function on every other thread of the process, inside a signal handler on that
// thread: a thread dump of every thread when the launch deadline passes, an alternate signal
// stack for threads the app did not create.
//
// SIGPROF carries the request because it is the one asynchronous signal that libdispatch's
// worker threads — which run Swift concurrency's cooperative pool on Linux — leave unblocked
// (`_dispatch_sigmask` blocks everything but SIGILL, SIGTRAP, SIGFPE, SIGBUS, SIGSEGV, SIGSYS,
// SIGPIPE and SIGPROF). Our SIGPROF handler is installed only for the broadcast and the
// previous disposition restored after it, so a profiler's timer is borrowed for milliseconds.
// A thread that blocks SIGPROF too does not answer; the caller is told how many did.
//
// Calls made inside the handler: syscall(SYS_gettid) (a raw system call) and lock-free C11
// atomics, then the callback (whose own calls are documented where it is defined).
#define _GNU_SOURCE
#include "CCrashCapture.h"
#include "thread_broadcast.h"
#include "alt_stack.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

static _Atomic pid_t target_thread;
static lcc_thread_callback current_callback;
static pthread_mutex_t broadcast_lock = PTHREAD_MUTEX_INITIALIZER;

static void broadcast_handler(int signo, siginfo_t *info, void *context) {
  int saved_errno = errno;
  pid_t self = (pid_t)syscall(SYS_gettid);
  if (atomic_load(&target_thread) == self) {
    current_callback(signo, info, context);
    atomic_store(&target_thread, 0);
  }
  errno = saved_errno;
}

int lcc_broadcast_to_other_threads(lcc_thread_callback callback, int timeout_ms) {
  pthread_mutex_lock(&broadcast_lock);
  current_callback = callback;
  struct sigaction action, previous;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = broadcast_handler;
  action.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGPROF, &action, &previous) != 0) {
    pthread_mutex_unlock(&broadcast_lock);
    return -1;
  }
  int answered = 0;
  int withdrawn = 0;
  pid_t process = getpid();
  pid_t self = (pid_t)syscall(SYS_gettid);
  DIR *tasks = opendir("/proc/self/task");
  if (tasks) {
    struct dirent *entry;
    while ((entry = readdir(tasks)) != NULL) {
      pid_t thread = (pid_t)atoi(entry->d_name);
      if (thread <= 0 || thread == self) continue;
      atomic_store(&target_thread, thread);
      if (syscall(SYS_tgkill, process, thread, SIGPROF) != 0) {
        atomic_store(&target_thread, 0);
        continue;
      }
      struct timespec pause = {0, 1000000};
      for (int waited = 0; waited < timeout_ms && atomic_load(&target_thread) != 0; waited++) nanosleep(&pause, NULL);
      pid_t expected = thread;
      // Not answered (SIGPROF blocked there, or the thread exited): withdraw the request.
      if (!atomic_compare_exchange_strong(&target_thread, &expected, 0)) {
        answered++;
      } else {
        withdrawn++;
      }
    }
    closedir(tasks);
  }
  // A withdrawn request stays pending on a thread that blocks SIGPROF, and is delivered if it
  // ever unblocks it: with the default action that would end the process, so then our handler
  // (which finds no target and returns) stays. Otherwise the previous action comes back.
  int previous_is_default = !(previous.sa_flags & SA_SIGINFO) && previous.sa_handler == SIG_DFL;
  if (!(withdrawn && previous_is_default)) sigaction(SIGPROF, &previous, NULL);
  pthread_mutex_unlock(&broadcast_lock);
  return answered;
}

static void prepare_from_signal(int signo, siginfo_t *info, void *context) {
  (void)signo;
  (void)info;
  // Only async-signal-safe calls: the thread may have been interrupted inside malloc (a first
  // version called pthread_getattr_np here, which allocates, and deadlocked such a thread).
  if (!lcc_alt_stack_map_and_install()) return;
  // rt_sigreturn restores the alternate stack saved in the signal frame: put the new one there.
  stack_t current;
  if (sigaltstack(NULL, &current) == 0) ((ucontext_t *)context)->uc_stack = current;
}

int lcc_prepare_all_threads(int timeout_ms) {
  // Creates the release key (pthread_once) outside any handler.
  if (lcc_prepare_current_thread() != 0) return -1;
  return lcc_broadcast_to_other_threads(prepare_from_signal, timeout_ms);
}
