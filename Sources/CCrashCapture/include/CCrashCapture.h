#ifndef C_CRASH_CAPTURE_H
#define C_CRASH_CAPTURE_H

#include <pthread.h>
#include <sys/types.h>
#include <stdint.h>
#include <stddef.h>

// ---------------------------------------------------------------------------
// Crash capture: an async-signal-safe signal handler that walks the crashing
// thread's stack with a privately loaded libunwind and writes one NDJSON
// `crash` record (raw PCs + the module map captured at install).
// ---------------------------------------------------------------------------

/// The file the handler creates (empty) next to a crash report it wrote: the next launch lists
/// the directory for reports only when it is there.
#define LCC_REPORT_MARKER "pending-crash-reports"

/// Options for `lcc_install`. Zero-initialise, then set what you need.
typedef struct lcc_options {
  /// File descriptor the `crash` line is appended to (the events file), or -1.
  int events_fd;
  /// Descriptor of the directory the handler creates a crash report in (the state directory,
  /// opened and checked by the caller, which keeps it open), or -1 for no report.
  int report_directory_fd;
  /// Name of the crash report file in that directory, or NULL/"": no report.
  const char *report_name;
  /// A group given read access to the report (mode 0640), or -1: the report is 0600.
  long long report_group;
  /// Frames recorded at most (0 = 128). Past it, the first frames and the last min(max/4, 32) are kept.
  int max_frames;
  /// 1: after recording, hand the signal to the handler installed before us (e.g. the
  /// Swift runtime's backtracer); 0: restore the default action.
  int chain;
  /// Bit (1u << signo) for each signal to catch; 0 = SEGV, BUS, ILL, FPE, ABRT, TRAP.
  uint64_t signals;
  /// Size of each alternate signal stack (0 = 256 KiB).
  size_t alt_stack_size;
  /// 1: do not map the unwind tables (.eh_frame_hdr, .eh_frame) of the executable, the Swift
  /// runtime and libc into the page tables at install. Mapping them costs ~50 µs at install and
  /// spares the first crash the page faults of its first lookups (~10 µs, or a disk read if
  /// the pages were evicted).
  int skip_prefault;
  /// Frames libunwind steps through before the frame-pointer chain is tried for the rest
  /// (0 = 512); where the chain cannot reach the thread's bottom, libunwind goes on.
  int max_walk;
} lcc_options;

/// Installs the handler. Loads libunwind with dlopen(RTLD_LOCAL) (so its `_Unwind_*` and
/// `backtrace` never interpose the process's), warms it up, captures the module map and
/// gives the calling thread an alternate signal stack. Returns 0, or -1 with a message.
int lcc_install(const lcc_options *options, char *error, size_t error_size);

/// Restores the previous handlers.
void lcc_uninstall(void);

/// Gives the calling thread an alternate signal stack (freed when the thread exits),
/// so a stack overflow on it is still caught. Every thread should call this once.
/// Returns 0, or -1 with errno set.
int lcc_prepare_current_thread(void);

/// Re-captures the module map (call after dlopen of new code).
int lcc_refresh_modules(void);

/// A launch began (0) or finished (1). Several may run at once: the process's launches are
/// finished once each that began has finished; recorded as `after_launch` in crash records.
void lcc_set_launch_finished(int finished);

/// Names the cause of the next fatal signal (e.g. "launch-hang" before the launch deadline
/// sends SIGABRT): the record gets `"cause"`, and the report's type is the cause.
void lcc_set_crash_cause(const char *cause);


/// Writes every other thread's stack as a `thread_dump` event (the launch deadline's report),
/// asking each through SIGPROF, which libdispatch's workers leave unblocked; waits up to
/// `timeout_ms` per thread. Returns how many threads answered, or -1 (handler not installed).
int lcc_dump_all_threads(int timeout_ms);

/// Gives every thread of the process that can take SIGPROF an alternate signal stack (threads
/// the app did not create: NIO event loops, the Swift concurrency pool, Dispatch workers), so
/// a stack overflow on them is caught. Threads created later need it again. Returns how many
/// other threads answered, or -1.
int lcc_prepare_all_threads(int timeout_ms);

/// The calling thread's kernel id (gettid).
pid_t lcc_current_thread_id(void);

/// Fills `buffer` with `count` random bytes from the kernel (getrandom(2), glibc 2.25: Swift's
/// Glibc module does not import <sys/random.h>). Returns the bytes written, or -1 with errno.
long lcc_random_bytes(void *buffer, size_t count);

/// The effective uid the process had when it was executed (`getauxval(AT_EUID)`): no system
/// call. It differs from `geteuid()` once the process changed its effective uid.
unsigned int lcc_exec_effective_uid(void);

/// Names the calling thread for the kernel (prctl(PR_SET_NAME); at most 15 bytes are kept), as
/// /proc, gdb, top and crash records' `thread_name` show it. Not for a signal handler.
void lcc_name_current_thread(const char *name);

/// Whether the handler is installed.
int lcc_is_installed(void);

/// Benchmark only: walks and formats the calling thread's stack exactly as a crash would
/// (nothing is written) and returns the nanoseconds it took. Repeated calls measure the warm
/// path. Requires lcc_install; returns -1 otherwise. Not for use in a signal handler.
int64_t lcc_benchmark_walk(void);

// ---------------------------------------------------------------------------
// SIGTERM during the launch: a stop request (see stop_signal.c for the composition rules).
// ---------------------------------------------------------------------------

/// Arms stop recording. Installs the SIGTERM handler in front of the current disposition,
/// chaining to it. While armed, a SIGTERM writes one byte to `wake_fd` (the watcher's pipe)
/// once. Returns 0 when installed (or already ours), 1 when SIGTERM is ignored (nothing
/// installed) and 2 when a Dispatch signal source owns it (installed in front of libdispatch's
/// handler; the caller adds a Dispatch source of its own), -1 on failure.
int lcc_stop_signal_install(int wake_fd);

/// While armed, from the watcher: 0 when our handler is still SIGTERM's, 1 when SIGTERM is
/// now ignored, 2 when libdispatch took it (ours was put in front of its handler again; the
/// caller adds a Dispatch source), 3 when another handler (or the default action) replaced
/// ours and ours was put in front of it again. -1 on failure; 0 when not armed.
int lcc_stop_signal_check(void);

/// Disarms, and restores the saved disposition only if our handler is still the current one.
/// Returns 0 when restored (or nothing was installed), 1 when another handler owns SIGTERM now.
int lcc_stop_signal_uninstall(void);

/// Whether stop recording is armed (a launch is in progress).
int lcc_stop_signal_armed(void);

/// The watcher's wait: ppoll(2) on `fd` for input, at most `timeout_us` microseconds (forever
/// when negative). Returns what ppoll returns. C because Glibc's module does not export ppoll,
/// and poll(2) counts whole milliseconds. Not called from a signal handler.
int lcc_stop_signal_wait(int fd, long timeout_us);

/// Whether libdispatch is in the process (its C API, reached by weak references, resolved):
/// only then can it own a signal. See dispatch_signal_source.c.
int lcc_dispatch_available(void);

/// Makes, configures and resumes a Dispatch signal source for `signo` on a serial queue of the
/// library's: `on_signal(context)` runs for each delivery, `on_registered(context)` once it is
/// registered, `finalizer(context)` when libdispatch frees it. NULL when libdispatch is not in
/// the process. Not for a signal handler.
void *lcc_dispatch_signal_source_make(int signo, void *context, void (*on_signal)(void *),
                                      void (*on_registered)(void *), void (*finalizer)(void *));

/// Cancels and releases a source made by lcc_dispatch_signal_source_make (asynchronous: no
/// handler runs on the calling thread).
void lcc_dispatch_source_cancel(void *source);

/// The watcher recorded the stop in the sentinel: a handler waiting to chain may go on.
void lcc_stop_signal_recorded(void);

/// Whether a launch began and every launch that began finished (async-signal-safe).
int lcc_launch_finished(void);

/// How many launches began and have not finished (async-signal-safe).
int lcc_unfinished_launches(void);

/// After a stop was recorded: whether the process must now end by SIGTERM itself (the
/// disposition our handler stands for is the default one).
int lcc_stop_signal_should_terminate(void);

/// Ends the process by SIGTERM with the default action (from the watcher thread).
void lcc_stop_signal_terminate(void);

/// Ends the process by `signo`: default action, unblocked, raised. Where the kernel drops it
/// (PID 1 of a PID namespace sending itself a default-action signal), exit status 128+signo.
/// Async-signal-safe (sigaction, pthread_sigmask, raise, _exit).
__attribute__((noreturn)) void lcc_die_by_signal(int signo);

#endif
