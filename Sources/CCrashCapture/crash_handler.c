// The crash signal handler.
//
// Everything the handler calls, and why it is async-signal-safe:
//   clock_gettime, write, openat, fstat, fchown, fchmod, close, sigaction, sigprocmask, raise,
//       nanosleep, getpid, _exit — listed as async-signal-safe in POSIX.1-2008 XSH 2.4.3 /
//       signal-safety(7). (openat on the report directory's descriptor, opened and checked at
//       install: no path is looked up from the root, and no symlink followed.)
//   syscall(SYS_gettid), syscall(SYS_prctl, PR_GET_NAME) — raw system calls; glibc's
//       syscall() only moves registers and sets errno (no locks, no allocation).
//   atomic_compare_exchange_strong, atomic_load, atomic_store — lock-free C11 atomics on int
//       (a thread dump, lcc_dump_all_threads, takes and releases the guard, then returns).
//   libunwind unw_init_local2, unw_step, unw_get_reg (private RTLD_LOCAL copy) —
//       documented as signal-safe for local unwinding in libunwind(3); only this file uses
//       this copy, so no other thread can hold its locks. On the crashing thread its imports
//       are rerouted (unwinder_hooks.c): sigprocmask around its locks is skipped (a nested
//       fault is caught by the re-entry guard instead); its page validation (mincore, then a
//       pipe read and write) is answered from memory for the signal frame and the interrupted
//       stack, or after a stack overflow the part of the thread's stack recorded as mapped
//       (readable_memory.c), and made with those real system calls otherwise; any
//       thread-local storage it asks for is a static block, because a dlopen'ed library's
//       TLS is allocated with malloc on a thread's first access.
//       Frames are looked up in the unwind-info list registered at install (unwind_tables.c),
//       which libunwind reads without locks or system calls. For code loaded after install it
//       falls back to dl_iterate_phdr, which takes the loader lock: a crash while another
//       thread is inside dlopen could wait on it (a glibc limitation shared by every
//       libunwind-based handler; lcc_refresh_modules registers new code).
//   lcc_readable_begin_crash, lcc_readable_stack_top_above — store and compare integers; read
//       initial-exec TLS.
//   walk_frame_pointers — plain loads, only from the stack known mapped above a word libunwind
//       has read; lcc_unwind_tables_cover compares against the table registered at install.
//   lcc_buffer_* — loops and memcpy (async-signal-safe since POSIX.1-2016) over memory
//       mapped at install time.
// Nothing allocates, nothing uses stdio or locale, errno is saved and restored.
#define _GNU_SOURCE
#include "CCrashCapture.h"
#include "alt_stack.h"
#include "module_map.h"
#include "record_buffer.h"
#include "unwinder.h"
#include "unwinder_hooks.h"
#include "readable_memory.h"
#include "unwind_tables.h"
#include "thread_broadcast.h"
#include "machine_context.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define LCC_MAX_SIGNAL 65
#define LCC_TAIL_FRAMES 32
#define LCC_STEP_LIMIT 200000
// Frames libunwind walks by default. Each costs ~0.1-0.25 µs, so a runaway recursion walked
// to its bottom by libunwind alone (12,000 frames on an 8 MiB main stack) delayed the
// process's death by milliseconds; past the cap the frame-pointer chain is tried first.
#define LCC_DEFAULT_WALK 512
// How close below a thread's outermost frames a frame-pointer chain must end to have reached
// them (libc's start frames and a pthread's thread block take a few KiB).
#define LCC_BOTTOM_WINDOW (16 * 1024)

static lcc_unwinder unwinder;
static int unwinder_loaded;
static _Atomic int installed;
static struct sigaction previous_actions[LCC_MAX_SIGNAL];
static int chain_to_previous;
static int events_fd = -1;
// Set before a deliberate fatal signal (the launch deadline): recorded as `cause`, and the
// report's type. Written by one thread before pthread_kill, read in the handler.
static char crash_cause[32];
static int report_directory_fd = -1;
static char report_name[256];
static long long report_group = -1;
static int max_frames = 128;
static size_t max_walk = LCC_DEFAULT_WALK;
static uintptr_t *head_frames;
static uintptr_t tail_frames[LCC_TAIL_FRAMES];
static lcc_buffer record;
static lcc_buffer modules;
static pid_t main_thread_id;
static pid_t process_id;  // cached: one system call less in the handler; refreshed after fork
// Launches begun and not finished in this process, and whether one ever began: several
// organizers may launch at once (an app's parallel tests). Lock-free atomics: the handler
// reads them, and threads write them at once (ThreadSanitizer saw a plain int race).
static _Atomic int unfinished_launches;
static _Atomic int launch_began;
static _Atomic int handler_owner;  // tid of the thread recording a crash, 0 when none
static volatile sig_atomic_t first_signal;

static uint64_t monotonic_now(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

static const char *signal_name(int signo) {
  switch (signo) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    case SIGABRT: return "SIGABRT";
    case SIGTRAP: return "SIGTRAP";
    case SIGPROF: return "SIGPROF";
    case SIGSYS: return "SIGSYS";
    default: return "SIG?";
  }
}

static void write_all(int fd, const char *data, size_t length) {
  while (length > 0) {
    ssize_t written = write(fd, data, length);
    if (written < 0) {
      if (errno == EINTR) continue;
      return;
    }
    data += written;
    length -= (size_t)written;
  }
}

/// Restores what the signal did before us (or the default) so that re-raising ends the
/// process with the original signal, as the parent must see it in WTERMSIG.
/// Returns whether that is the default action.
static int restore_disposition(int signo) {
  struct sigaction *previous = &previous_actions[signo];
  int previous_is_handler = (previous->sa_flags & SA_SIGINFO) ? previous->sa_sigaction != NULL
                                                              : (previous->sa_handler != SIG_DFL && previous->sa_handler != SIG_IGN);
  if (chain_to_previous && previous_is_handler) {
    sigaction(signo, previous, NULL);
    return 0;
  } else {
    struct sigaction fallback;
    memset(&fallback, 0, sizeof fallback);
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    sigaction(signo, &fallback, NULL);
    return 1;
  }
}

/// A fault re-executes on return and reaches the restored disposition by itself (the kernel
/// forces it, even on PID 1); a signal that was sent (abort, kill, tgkill) or a trap whose PC
/// moved past int3 must be raised again. PID 1 of a PID namespace (a container without an
/// init) never receives a default-action signal it sends itself: there the process ends with
/// exit status 128+N, what container runtimes report for a death by N.
static void pass_on(int signo, const siginfo_t *info) {
  int default_action = restore_disposition(signo);
  if (info->si_code <= 0 || signo == SIGTRAP) {
    if (default_action && getpid() == 1) _exit(128 + signo);
    raise(signo);
  }
}

/// What a walk is for: a crash (the `crash` event and the report file), a requested thread
/// dump (a `thread_dump` event only), or a benchmark's dry run (the context comes from
/// getcontext, not a signal frame, and nothing is written).
typedef enum { RECORD_CRASH, RECORD_THREAD_DUMP, RECORD_DRY_RUN } record_kind;

/// Keeps frame number `index` of a walk: in the head while it has room, then in the tail
/// ring, which ends holding the last `tail_keep` frames.
static void keep_frame(size_t index, uintptr_t ip, size_t head_capacity, size_t tail_keep) {
  if (index < head_capacity) {
    head_frames[index] = ip;
  } else {
    tail_frames[(index - head_capacity) % tail_keep] = ip;
  }
}

#if defined(__x86_64__)
#define LCC_FRAME_POINTER_REGISTER UNW_X86_64_RBP
#elif defined(__aarch64__)
#define LCC_FRAME_POINTER_REGISTER UNW_AARCH64_X29
#endif

/// Past the walk's cap, finds the thread's bottom frames by following the frame-pointer chain
/// from the cursor's frame: two loads a frame instead of libunwind's ~0.1-0.25 µs, so a
/// runaway recursion's record still names the code that started it. Functions without a
/// frame pointer are skipped by the chain, which is why libunwind walks the first frames.
/// Every word read lies in the stack known mapped above a word libunwind has read; the chain
/// ends at a link that does not go up the stack or a return address outside registered code.
/// Returns 1 when it ended at the outermost frames: a zero link (where the thread's start
/// code cleared the register), or within LCC_BOTTOM_WINDOW of where they sit (libc's start
/// code keeps no frame pointer, so its link is whatever the register held).
static int walk_frame_pointers(unw_cursor_t *cursor, size_t *total, size_t head_capacity, size_t tail_keep) {
#ifdef LCC_FRAME_POINTER_REGISTER
  unw_word_t ip = 0, sp = 0, fp = 0;
  if (unwinder.get_reg(cursor, UNW_REG_IP, &ip) < 0 || ip == 0) return 0;
  if (unwinder.get_reg(cursor, UNW_REG_SP, &sp) < 0 || unwinder.get_reg(cursor, LCC_FRAME_POINTER_REGISTER, &fp) < 0) {
    return 0;
  }
  // libunwind has just read the return address below `sp`.
  uintptr_t base = 0;
  uintptr_t top = lcc_readable_stack_top_above((uintptr_t)sp - sizeof(uintptr_t), &base);
  if (!top) return 0;
  keep_frame((*total)++, (uintptr_t)ip, head_capacity, tail_keep);
  uintptr_t frame = (uintptr_t)fp;
  uintptr_t last = (uintptr_t)sp;
  while (*total < LCC_STEP_LIMIT) {
    if (frame < last || frame > top - 2 * sizeof(uintptr_t) || frame % sizeof(uintptr_t)) break;
    uintptr_t next = ((const uintptr_t *)frame)[0];
    uintptr_t return_address = ((const uintptr_t *)frame)[1];
    if (!lcc_unwind_tables_cover(return_address)) break;
    keep_frame((*total)++, return_address, head_capacity, tail_keep);
    last = frame;
    if (next == 0) return 1;
    if (next <= frame) break;
    frame = next;
  }
  return last <= base && base - last <= LCC_BOTTOM_WINDOW;
#else
  (void)cursor, (void)total, (void)head_capacity, (void)tail_keep;
  return 0;
#endif
}

/// Walks the stack and formats the record, then writes it as `kind` says.
static void record_crash(int signo, const siginfo_t *info, void *context, uint64_t entered, pid_t thread_id,
                         record_kind kind) {
  // Keep the first frames and the last `tail_keep` (the thread's bottom: who started the work).
  size_t tail_keep = (size_t)max_frames / 4 < LCC_TAIL_FRAMES ? (size_t)max_frames / 4 : LCC_TAIL_FRAMES;
  size_t head_capacity = (size_t)max_frames - tail_keep;
  size_t total = 0;
  int walk_stopped = 0;
  size_t by_frame_pointers = 0;
  unw_cursor_t cursor;
  int flags = kind == RECORD_DRY_RUN ? 0 : UNW_INIT_SIGNAL_FRAME;
  if (unwinder_loaded && unwinder.init_local2(&cursor, (unw_context_t *)context, flags) == 0) {
    size_t cap = max_walk;
    for (;;) {
      unw_word_t ip = 0;
      if (unwinder.get_reg(&cursor, UNW_REG_IP, &ip) < 0 || ip == 0) break;
      keep_frame(total++, (uintptr_t)ip, head_capacity, tail_keep);
      if (unwinder.step(&cursor) <= 0) break;
      if (total < cap) continue;
      if (cap < LCC_STEP_LIMIT) {
        // Past the cap: the frame-pointer chain, or, where it cannot reach the bottom (a
        // thread whose stack bounds were not recorded, code without frame pointers), libunwind
        // on to the bottom after all: slower, never less. Raising the cap to the step limit
        // makes this the only try.
        size_t before = total;
        if (walk_frame_pointers(&cursor, &total, head_capacity, tail_keep)) {
          by_frame_pointers = total - before;
          break;
        }
        total = before;
        cap = LCC_STEP_LIMIT;
        continue;
      }
      walk_stopped = 1;
      break;
    }
  } else {
    // Without libunwind: at least the faulting PC from the signal context.
    head_frames[0] = LCC_CONTEXT_PC(context);
    total = 1;
  }
  uint64_t unwound = monotonic_now();

  char thread_name[17] = {0};
  syscall(SYS_prctl, PR_GET_NAME, thread_name, 0, 0, 0);

  lcc_buffer *out = &record;
  lcc_buffer_reset(out);
  lcc_buffer_string(out, kind == RECORD_THREAD_DUMP ? "{\"event\":\"thread_dump\",\"pid\":" : "{\"event\":\"crash\",\"pid\":");
  lcc_buffer_signed(out, process_id);
  lcc_buffer_string(out, ",\"t\":");
  lcc_buffer_unsigned(out, entered);
  lcc_buffer_string(out, ",\"signal\":");
  lcc_buffer_signed(out, signo);
  lcc_buffer_string(out, ",\"signal_name\":\"");
  lcc_buffer_string(out, signal_name(signo));
  lcc_buffer_string(out, "\",\"code\":");
  lcc_buffer_signed(out, info->si_code);
  lcc_buffer_string(out, ",\"addr\":\"");
  lcc_buffer_hex(out, (uint64_t)(uintptr_t)info->si_addr);
  lcc_buffer_string(out, "\",\"thread\":");
  lcc_buffer_signed(out, thread_id);
  lcc_buffer_string(out, ",\"thread_name\":");
  lcc_buffer_json_string(out, thread_name);
  lcc_buffer_string(out, thread_id == main_thread_id ? ",\"main_thread\":true" : ",\"main_thread\":false");
  lcc_buffer_string(out, lcc_launch_finished() ? ",\"after_launch\":true" : ",\"after_launch\":false");
  if (crash_cause[0]) {
    lcc_buffer_string(out, ",\"cause\":");
    lcc_buffer_json_string(out, crash_cause);
  }
  lcc_buffer_string(out, ",\"entered\":");
  lcc_buffer_unsigned(out, entered);
  lcc_buffer_string(out, ",\"unwound\":");
  lcc_buffer_unsigned(out, unwound);
  lcc_buffer_string(out, ",\"frames\":[");
  size_t head_count = total < head_capacity ? total : head_capacity;
  for (size_t index = 0; index < head_count; index++) {
    if (index) lcc_buffer_string(out, ",");
    lcc_buffer_string(out, "\"");
    lcc_buffer_hex(out, head_frames[index]);
    lcc_buffer_string(out, "\"");
  }
  size_t tail_count = 0;
  if (total > head_capacity) {
    tail_count = total - head_capacity < tail_keep ? total - head_capacity : tail_keep;
    for (size_t index = total - tail_count; index < total; index++) {
      lcc_buffer_string(out, ",\"");
      lcc_buffer_hex(out, tail_frames[(index - head_capacity) % tail_keep]);
      lcc_buffer_string(out, "\"");
    }
  }
  lcc_buffer_string(out, "],\"frames_total\":");
  lcc_buffer_unsigned(out, total);
  lcc_buffer_string(out, ",\"frames_omitted\":");
  lcc_buffer_unsigned(out, total - head_count - tail_count);
  lcc_buffer_string(out, ",\"frames_omitted_at\":");
  lcc_buffer_unsigned(out, head_count);
  lcc_buffer_string(out, walk_stopped ? ",\"walk_stopped\":true" : ",\"walk_stopped\":false");
  lcc_buffer_string(out, ",\"frames_by_frame_pointers\":");
  lcc_buffer_unsigned(out, by_frame_pointers);
  lcc_buffer_string(out, ",\"modules\":");
  lcc_buffer_bytes(out, modules.data, modules.length);
  // `done` is taken after unwinding and formatting, immediately before the write.
  lcc_buffer_string(out, ",\"done\":");
  lcc_buffer_unsigned(out, monotonic_now());
  lcc_buffer_string(out, "}\n");
  if (out->overflow) {
    // Never emit half a JSON object: close it as well as the space allows.
    out->length = out->size - 3;
    lcc_buffer_bytes(out, "}\n", 2);
  }
  if (kind == RECORD_DRY_RUN) return;
  if (events_fd >= 0) write_all(events_fd, out->data, out->length);
  if (report_directory_fd >= 0 && report_name[0] && kind == RECORD_CRASH) {
    // openat on the checked directory, O_NOFOLLOW and O_NONBLOCK: a symlink planted as the
    // report is not followed, a FIFO not waited on (ENXIO without a reader); fstat refuses
    // anything that is not a regular file. Private: 0600, or 0640 for the reader group.
    int fd = openat(report_directory_fd, report_name,
                    O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
    if (fd >= 0) {
      struct stat info;
      if (fstat(fd, &info) == 0 && S_ISREG(info.st_mode)) {
        if (report_group >= 0 && fchown(fd, (uid_t)-1, (gid_t)report_group) == 0) fchmod(fd, 0640);
        // No fsync: it would add ~0.5 ms to every crash, and the count never depends on this
        // file (the sentinel does); only a power cut in the next instants could lose the cause.
        write_all(fd, out->data, out->length);
        close(fd);
        // After the report: a launch that sees the marker finds the report whole.
        int marker = openat(report_directory_fd, LCC_REPORT_MARKER,
                            O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
        if (marker >= 0) close(marker);
      } else {
        close(fd);
      }
    }
  }
}

int64_t lcc_benchmark_walk(void);

/// The process id and its main thread's id (the same number); in a forked child, the thread
/// that called fork becomes the main thread.
static void refresh_process_id(void) {
  process_id = getpid();
  main_thread_id = process_id;
}

static void crash_handler(int signo, siginfo_t *info, void *context) {
  uint64_t entered = monotonic_now();
  int saved_errno = errno;
  pid_t thread_id = (pid_t)syscall(SYS_gettid);
  int expected = 0;
  if (!atomic_compare_exchange_strong(&handler_owner, &expected, thread_id)) {
    if (expected == thread_id) {
      // A fault inside our own handler: give up recording and die by the first signal.
      int original = first_signal ? first_signal : signo;
      restore_disposition(signo);
      restore_disposition(original);
      sigset_t unblock;
      sigemptyset(&unblock);
      sigaddset(&unblock, original);
      sigprocmask(SIG_UNBLOCK, &unblock, NULL);
      raise(original);
      if (getpid() == 1) _exit(128 + original);
      return;
    }
    // Another thread is recording its crash and will end the process; wait for that
    // (bounded), then hand this signal on rather than deadlock.
    struct timespec pause = {0, 1000000};
    for (int waited = 0; waited < 2000 && atomic_load(&handler_owner) != 0; waited++) nanosleep(&pause, NULL);
    pass_on(signo, info);
    errno = saved_errno;
    return;
  }
  first_signal = signo;
  lcc_unwinder_enter_crash();
  lcc_readable_begin_crash(context, sizeof(ucontext_t),
                           LCC_CONTEXT_SP(context), signo, info);
  record_crash(signo, info, context, entered, thread_id, RECORD_CRASH);
  errno = saved_errno;
  // The guard stays held: the process is ending, and other crashing threads wait for it.
  pass_on(signo, info);
}

// One process, one handler, however many installers: an app's parallel tests each make a
// `ServerLaunch`, and each installs. Install, uninstall and the module map's refresh run
// under one lock (never taken in a handler). The first install puts the handler on each
// signal and keeps what was there; a later one updates the options, shares the handler and
// only adds a signal it newly asks for; the last uninstall restores what was there where the
// handler is still ours. A handler installed after ours is never replaced, by either.
static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;
static int install_count;         // installs not yet undone (under install_lock)
static uint64_t handled_signals;  // the signals our handler went on (under install_lock)

static int refresh_modules_locked(void);

/// The handler's buffers, made once and kept: a second install must not unmap memory that a
/// crash on another thread may be writing. A record buffer too small for a grown module map is
/// replaced by a larger one and the old one left mapped.
static int allocate_buffers(char *error, size_t error_size) {
  if (!head_frames) {
    head_frames = mmap(NULL, sizeof(uintptr_t) * 128 * 1024, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (head_frames == MAP_FAILED) head_frames = NULL;
  }
  if (!head_frames || max_frames > 128 * 1024) {
    snprintf(error, error_size, "cannot allocate the frame buffer for %d frames", max_frames);
    return -1;
  }
  size_t record_size = 4096 + (size_t)max_frames * 24 + modules.size;
  if (record.data && record.size >= record_size) return 0;
  void *data = mmap(NULL, record_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (data == MAP_FAILED) {
    snprintf(error, error_size, "cannot allocate the record buffer");
    return -1;
  }
  memset(data, 0, record_size);  // touch the pages now, not in the handler
  record.data = data;
  record.size = record_size;
  return 0;
}

static int install_locked(const lcc_options *options, char *error, size_t error_size) {
  if (!unwinder_loaded) {
    if (lcc_unwinder_load(&unwinder, error, error_size) != 0) return -1;
    unwinder_loaded = 1;
  }
  if (options->report_directory_fd >= 0 && options->report_name && options->report_name[0] &&
      (strlen(options->report_name) >= sizeof report_name || strchr(options->report_name, '/'))) {
    snprintf(error, error_size, "crash report name too long, or not a bare name");
    return -1;
  }
  max_frames = options->max_frames > 0 ? options->max_frames : 128;
  if (max_frames < 4) max_frames = 4;
  max_walk = options->max_walk > 0 ? (size_t)options->max_walk : LCC_DEFAULT_WALK;
  if (max_walk > LCC_STEP_LIMIT) max_walk = LCC_STEP_LIMIT;
  events_fd = options->events_fd;
  report_directory_fd = -1;
  report_name[0] = 0;
  report_group = options->report_group;
  if (options->report_directory_fd >= 0 && options->report_name && options->report_name[0]) {
    strcpy(report_name, options->report_name);
    report_directory_fd = options->report_directory_fd;
  }
  chain_to_previous = options->chain;
  uint64_t asked = options->signals ? options->signals
                                    : (1ull << SIGSEGV) | (1ull << SIGBUS) | (1ull << SIGILL) | (1ull << SIGFPE) |
                                          (1ull << SIGABRT) | (1ull << SIGTRAP);
  lcc_alt_stack_set_size(options->alt_stack_size ? options->alt_stack_size : 256 * 1024);

  if (refresh_modules_locked() != 0) {
    snprintf(error, error_size, "cannot capture the module map");
    return -1;
  }
  // Preallocated: the handler never allocates.
  if (allocate_buffers(error, error_size) != 0) return -1;
  if (!options->skip_prefault) lcc_unwind_tables_prefault();
  lcc_unwinder_warm_up(&unwinder);

  refresh_process_id();
  static int fork_hook_registered;
  if (!fork_hook_registered) fork_hook_registered = pthread_atfork(NULL, NULL, refresh_process_id) == 0;
  if (lcc_prepare_current_thread() != 0) {
    snprintf(error, error_size, "cannot create an alternate signal stack: %s", strerror(errno));
    return -1;
  }
  // Only a first install resets the guard: a later one may meet a crash being recorded.
  if (install_count == 0) atomic_store(&handler_owner, 0);
  for (int signo = 1; signo < LCC_MAX_SIGNAL; signo++) {
    // Already ours (or ours once and since replaced by a later handler, which stays), or not asked.
    if (!(asked & (1ull << signo)) || (handled_signals & (1ull << signo))) continue;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = crash_handler;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    if (sigaction(signo, &action, &previous_actions[signo]) != 0) {
      snprintf(error, error_size, "sigaction(%d): %s", signo, strerror(errno));
      return -1;
    }
    handled_signals |= 1ull << signo;
  }
  install_count++;
  atomic_store(&installed, 1);
  // A dress rehearsal: walk and format once now (nothing written), so the first real crash
  // finds the frame buffer, the handler's code and libunwind's memory pools already touched.
  memset(head_frames, 0, sizeof(uintptr_t) * (size_t)max_frames);
  lcc_benchmark_walk();
  return 0;
}

int lcc_install(const lcc_options *options, char *error, size_t error_size) {
  pthread_mutex_lock(&install_lock);
  int result = install_locked(options, error, error_size);
  pthread_mutex_unlock(&install_lock);
  return result;
}

void lcc_uninstall(void) {
  pthread_mutex_lock(&install_lock);
  if (install_count > 0 && --install_count == 0) {
    for (int signo = 1; signo < LCC_MAX_SIGNAL; signo++) {
      if (!(handled_signals & (1ull << signo))) continue;
      struct sigaction current;
      // Restored only where ours is still the handler: a later one keeps its place.
      if (sigaction(signo, NULL, &current) == 0 && (current.sa_flags & SA_SIGINFO) &&
          current.sa_sigaction == crash_handler) {
        sigaction(signo, &previous_actions[signo], NULL);
      }
    }
    handled_signals = 0;
    atomic_store(&installed, 0);
  }
  pthread_mutex_unlock(&install_lock);
}

static int refresh_modules_locked(void) {
  if (unwinder_loaded && unwinder.register_dynamic && unwinder.cancel_dynamic) {
    lcc_unwind_tables_register(unwinder.register_dynamic, unwinder.cancel_dynamic);
  }
  size_t size = 64 * 1024;
  for (int attempt = 0; attempt < 6; attempt++, size *= 2) {
    char *data = malloc(size);
    if (!data) return -1;
    lcc_buffer candidate = {.data = data, .size = size};
    if (lcc_module_map_render(&candidate) == 0) {
      // Swap in only a complete map; the old one is leaked on purpose if a handler could be reading it.
      modules = candidate;
      if (record.data && record.size < 4096 + (size_t)max_frames * 24 + modules.length) return -1;
      return 0;
    }
    free(data);
  }
  return -1;
}

int lcc_refresh_modules(void) {
  pthread_mutex_lock(&install_lock);
  int result = refresh_modules_locked();
  pthread_mutex_unlock(&install_lock);
  return result;
}

void lcc_set_launch_finished(int finished) {
  if (!finished) {
    atomic_store(&launch_began, 1);
    atomic_fetch_add(&unfinished_launches, 1);
    return;
  }
  // One launch fewer, never below none (a finish without its begin changes nothing).
  int count = atomic_load(&unfinished_launches);
  while (count > 0 && !atomic_compare_exchange_weak(&unfinished_launches, &count, count - 1)) {}
}

int lcc_launch_finished(void) { return atomic_load(&launch_began) && atomic_load(&unfinished_launches) == 0; }

int lcc_unfinished_launches(void) { return atomic_load(&unfinished_launches); }

pid_t lcc_current_thread_id(void) { return (pid_t)syscall(SYS_gettid); }

void lcc_name_current_thread(const char *name) { prctl(PR_SET_NAME, name, 0, 0, 0); }

void lcc_set_crash_cause(const char *cause) {
  size_t length = cause ? strlen(cause) : 0;
  if (length >= sizeof crash_cause) length = sizeof crash_cause - 1;
  memcpy(crash_cause, cause ? cause : "", length);
  crash_cause[length] = 0;
  atomic_thread_fence(memory_order_seq_cst);
}


/// A thread dump requested by lcc_dump_all_threads, on the thread itself (in its SIGPROF handler).
static void record_thread_dump(int signo, siginfo_t *info, void *context) {
  uint64_t entered = monotonic_now();
  pid_t thread_id = (pid_t)syscall(SYS_gettid);
  int expected = 0;
  if (!atomic_compare_exchange_strong(&handler_owner, &expected, thread_id)) return;
  lcc_unwinder_enter_crash();
  lcc_readable_begin_crash(context, sizeof(ucontext_t),
                           LCC_CONTEXT_SP(context), signo, info);
  record_crash(signo, info, context, entered, thread_id, RECORD_THREAD_DUMP);
  // The thread carries on: libunwind's imports go back to the real calls.
  lcc_unwinder_leave_crash();
  atomic_store(&handler_owner, 0);
}

int lcc_dump_all_threads(int timeout_ms) {
  if (!installed) return -1;
  return lcc_broadcast_to_other_threads(record_thread_dump, timeout_ms);
}

int lcc_is_installed(void) { return installed; }

int64_t lcc_benchmark_walk(void) {
  if (!installed) return -1;
  ucontext_t context;
  siginfo_t info;
  memset(&info, 0, sizeof info);
  if (unwinder.getcontext((unw_context_t *)&context) != 0) return -1;
  // The frame and record buffers are the handler's: one walk at a time, as in a crash.
  int expected = 0;
  if (!atomic_compare_exchange_strong(&handler_owner, &expected, lcc_current_thread_id())) return -1;
  uint64_t start = monotonic_now();
  lcc_unwinder_enter_crash();
  lcc_readable_begin_crash(&context, sizeof context, LCC_CONTEXT_SP(&context), 0, &info);
  record_crash(0, &info, &context, start, main_thread_id, RECORD_DRY_RUN);
  lcc_unwinder_leave_crash();
  atomic_store(&handler_owner, 0);
  return (int64_t)(monotonic_now() - start);
}
