// Per-thread alternate signal stacks: a stack overflow can only be handled on another stack,
// and that stack is per thread. Runs outside signal handlers.
#define _GNU_SOURCE
#include "CCrashCapture.h"
#include "alt_stack.h"
#include "readable_memory.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

// Set by each install (under its lock) while other threads prepare themselves: atomic, and
// lock-free, so the SIGPROF handler that gives a thread its stack may load it.
static _Atomic size_t stack_size = 256 * 1024;
static pthread_key_t release_key;
static pthread_once_t release_key_once = PTHREAD_ONCE_INIT;

// Read once outside any signal handler (lcc_prepare_current_thread runs before every broadcast).
// Atomic: threads preparing themselves at once may both store it (ThreadSanitizer saw that);
// relaxed and lock-free, so a handler may load it.
static _Atomic size_t cached_page_size;

static size_t page_size(void) {
  size_t size = atomic_load_explicit(&cached_page_size, memory_order_relaxed);
  if (!size) {
    size = (size_t)sysconf(_SC_PAGESIZE);
    atomic_store_explicit(&cached_page_size, size, memory_order_relaxed);
  }
  return size;
}

static void release_stack(void *memory) {
  stack_t disable = {.ss_flags = SS_DISABLE};
  sigaltstack(&disable, NULL);
  munmap(memory, stack_size + page_size());
}

static void make_release_key(void) { pthread_key_create(&release_key, release_stack); }

void lcc_alt_stack_set_size(size_t size) {
  if (size >= 64 * 1024) stack_size = size;
}

int lcc_prepare_current_thread(void) {
  (void)page_size();  // cached here, outside any handler
  lcc_readable_record_thread_stack();
  stack_t current;
  if (sigaltstack(NULL, &current) != 0) return -1;
  if (!(current.ss_flags & SS_DISABLE) && current.ss_size >= 64 * 1024) return 0;  // already has a usable one
  pthread_once(&release_key_once, make_release_key);
  void *memory = lcc_alt_stack_map_and_install();
  if (!memory) return -1;
  pthread_setspecific(release_key, memory);
  return 0;
}

// Async-signal-safe (called in a SIGPROF handler by lcc_prepare_all_threads, on a thread that
// may have been interrupted inside malloc): only system calls and a loop on fresh memory —
// mmap, mprotect, memset, sigaltstack. It records neither the thread's stack bounds
// (pthread_getattr_np allocates) nor a release at thread exit (pthread_setspecific may
// allocate): the stack of a thread that exits stays mapped, 32 KiB of it resident.
void *lcc_alt_stack_map_and_install(void) {
  stack_t current;
  if (sigaltstack(NULL, &current) != 0) return NULL;
  if (!(current.ss_flags & SS_DISABLE) && current.ss_size >= 64 * 1024) return NULL;
  size_t guard = page_size();
  char *memory = mmap(NULL, stack_size + guard, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (memory == MAP_FAILED) return NULL;
  // A guard page below the stack: overflowing the handler's own stack faults instead of corrupting memory.
  mprotect(memory, guard, PROT_NONE);
  // Touch the top 32 KiB, where the handler runs (the stack grows down), so a crash does not
  // take page faults there; the rest stays untouched (and costs nothing) until needed.
  size_t touched = stack_size < 32 * 1024 ? stack_size : 32 * 1024;
  memset(memory + guard + stack_size - touched, 0, touched);
  stack_t stack = {.ss_sp = memory + guard, .ss_size = stack_size, .ss_flags = 0};
  if (sigaltstack(&stack, NULL) != 0) {
    int saved = errno;
    munmap(memory, stack_size + guard);
    errno = saved;
    return NULL;
  }
  return memory;
}
