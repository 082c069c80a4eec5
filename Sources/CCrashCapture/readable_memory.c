// Memory a crash walk may read without asking the kernel. libunwind checks every new page it
// reads (see unwinder_hooks.c); for the two regions every walk reads first, the signal frame
// and the interrupted stack, the answer is known without a system call.
#define _GNU_SOURCE
#include "readable_memory.h"

#include <elf.h>
#include <stdatomic.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/// The kernel's page size, read outside the handler (lcc_readable_record_thread_stack), by
/// every thread that prepares itself: atomic, since two may store it at once (ThreadSanitizer
/// saw that race). Relaxed and lock-free: a handler may load it.
static _Atomic uintptr_t page_size_value = 4096;
static inline uintptr_t page_size(void) { return atomic_load_explicit(&page_size_value, memory_order_relaxed); }
// A fault this close below the stack pointer may be a stack overflow: the stack's lowest
// pages may then be unmapped or guard pages, so they get libunwind's real check.
#define LCC_OVERFLOW_WINDOW ((uintptr_t)1 << 20)

/// The calling thread's stack top, and the lowest stack address known to stay mapped while the
/// thread lives; initial-exec TLS, so reading them in a handler is one load each.
static __thread uintptr_t thread_stack_top __attribute__((tls_model("initial-exec")));
static __thread uintptr_t thread_stack_low __attribute__((tls_model("initial-exec")));
/// The lowest address this thread's stack can ever have: a pthread's recorded bottom, or the
/// main stack's top minus its size limit (at most 128 MiB, the smallest gap Linux leaves
/// below it for mmap).
static __thread uintptr_t thread_stack_floor __attribute__((tls_model("initial-exec")));
/// Where the thread's outermost frame sits below: the main thread's argc, a pthread's top.
static __thread uintptr_t thread_stack_base __attribute__((tls_model("initial-exec")));

extern void *__libc_stack_end;

static uintptr_t frame_start, frame_end;
static uintptr_t stack_start, stack_end;

void lcc_readable_record_thread_stack(void) {
  atomic_store_explicit(&page_size_value, (uintptr_t)sysconf(_SC_PAGESIZE), memory_order_relaxed);
  if (syscall(SYS_gettid) == getpid()) {
    // The main thread: everything from a running frame up to the end of the auxiliary vector
    // is mapped. The kernel laid out argc, argv[], envp[] and auxv upwards from where the
    // process started (pthread_getattr_np would read /proc/self/maps to say more).
    const uintptr_t *word = (const uintptr_t *)__libc_stack_end;
    word += 1 + word[0] + 1;  // argc, argv[], NULL
    while (*word) word++;     // envp[]
    word++;
    while (word[0] != AT_NULL) word += 2;  // auxv pairs, up to and including AT_NULL
    thread_stack_top = (uintptr_t)(word + 2);
    thread_stack_base = (uintptr_t)__libc_stack_end;
    // The main stack's mapping grows down as it is used and never shrinks, so the page in use
    // now stays mapped: a lower bound, not the mapping's start.
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    thread_stack_low = (here + page_size() - 1) & ~(page_size() - 1);
    struct rlimit limit;
    uintptr_t extent = (uintptr_t)128 << 20;
    if (getrlimit(RLIMIT_STACK, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < extent) {
      extent = (uintptr_t)limit.rlim_cur;
    }
    thread_stack_floor = thread_stack_top > extent ? thread_stack_top - extent : 0;
    return;
  }
  pthread_attr_t attributes;
  if (pthread_getattr_np(pthread_self(), &attributes) != 0) return;
  void *low = NULL;
  size_t size = 0;
  if (pthread_attr_getstack(&attributes, &low, &size) == 0) {
    // A thread's stack is one mapping of fixed size; glibc reports it without the guard pages.
    thread_stack_top = (uintptr_t)low + size;
    thread_stack_low = ((uintptr_t)low + page_size() - 1) & ~(page_size() - 1);
    thread_stack_floor = thread_stack_low;
    thread_stack_base = thread_stack_top;
  }
  pthread_attr_destroy(&attributes);
}

void lcc_readable_begin_crash(const void *context, size_t context_size, uintptr_t stack_pointer, int signo,
                              const siginfo_t *info) {
  // Mappings are whole pages: the pages the kernel wrote the signal frame to are readable.
  frame_start = (uintptr_t)context & ~(page_size() - 1);
  frame_end = ((uintptr_t)context + context_size + page_size() - 1) & ~(page_size() - 1);
  stack_start = stack_end = 0;
  uintptr_t page = stack_pointer & ~(page_size() - 1);
  int faulted = (signo == SIGSEGV || signo == SIGBUS) && info && info->si_code > 0;
  uintptr_t fault = faulted ? (uintptr_t)info->si_addr : 0;
  uintptr_t top = (thread_stack_top + page_size() - 1) & ~(page_size() - 1);
  if (faulted && fault < stack_pointer + page_size() && fault + LCC_OVERFLOW_WINDOW > stack_pointer) {
    // A stack overflow: the pages near the stack pointer may be guard pages or unmapped, but
    // the part of this thread's stack recorded as mapped still is. Without it, each of an
    // overflowed stack's pages cost libunwind's three system calls (~0.3 ms a crash at 1,800
    // frames on a worker thread).
    if (thread_stack_low && top > thread_stack_low && top - thread_stack_low < ((uintptr_t)1 << 30)) {
      stack_start = thread_stack_low;
      stack_end = top;
    }
    return;
  }
  stack_start = page;
  // The page holding the stack pointer is mapped (the interrupted code was using it); above
  // it, the stack is mapped up to the top recorded for this thread, if any, and so is the
  // rest of the page that holds the top (libunwind checks whole pages).
  stack_end = top > page && top - page < ((uintptr_t)1 << 30) ? top : page + page_size();
}

int lcc_readable_contains(uintptr_t address, size_t length) {
  uintptr_t end = address + length;
  if (end < address) return 0;
  if (address >= frame_start && end <= frame_end) return 1;
  return address >= stack_start && end <= stack_end && stack_end != 0;
}

uintptr_t lcc_readable_stack_top_above(uintptr_t address, uintptr_t *base) {
  uintptr_t top = thread_stack_top;
  if (!top || !thread_stack_floor || address < thread_stack_floor || address >= top) return 0;
  *base = thread_stack_base;
  return top;
}
