// Memory a crash walk may read without asking the kernel. libunwind checks every new page it
// reads (see unwinder_hooks.c); for the two regions every walk reads first, the signal frame
// and the interrupted stack, the answer is known without a system call.
#define _GNU_SOURCE
#include "readable_memory.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#define LCC_PAGE ((uintptr_t)4096)
// A fault this close below the stack pointer may be a stack overflow: the stack's lowest
// pages may then be unmapped or guard pages, so they get libunwind's real check.
#define LCC_OVERFLOW_WINDOW ((uintptr_t)1 << 20)

/// The calling thread's stack top; initial-exec TLS, so reading it in a handler is one load.
static __thread uintptr_t thread_stack_top __attribute__((tls_model("initial-exec")));

extern void *__libc_stack_end;

static uintptr_t frame_start, frame_end;
static uintptr_t stack_start, stack_end;

void lcc_readable_record_thread_stack(void) {
  if (syscall(SYS_gettid) == getpid()) {
    // The main thread: everything from a running frame up to where the process started is
    // mapped (pthread_getattr_np would read /proc/self/maps to say more).
    thread_stack_top = (uintptr_t)__libc_stack_end;
    return;
  }
  pthread_attr_t attributes;
  if (pthread_getattr_np(pthread_self(), &attributes) != 0) return;
  void *low = NULL;
  size_t size = 0;
  if (pthread_attr_getstack(&attributes, &low, &size) == 0) thread_stack_top = (uintptr_t)low + size;
  pthread_attr_destroy(&attributes);
}

void lcc_readable_begin_crash(const void *context, size_t context_size, uintptr_t stack_pointer, int signo,
                              const siginfo_t *info) {
  // Mappings are whole pages: the pages the kernel wrote the signal frame to are readable.
  frame_start = (uintptr_t)context & ~(LCC_PAGE - 1);
  frame_end = ((uintptr_t)context + context_size + LCC_PAGE - 1) & ~(LCC_PAGE - 1);
  stack_start = stack_end = 0;
  uintptr_t page = stack_pointer & ~(LCC_PAGE - 1);
  int faulted = (signo == SIGSEGV || signo == SIGBUS) && info && info->si_code > 0;
  uintptr_t fault = faulted ? (uintptr_t)info->si_addr : 0;
  if (faulted && fault < stack_pointer + LCC_PAGE && fault + LCC_OVERFLOW_WINDOW > stack_pointer) return;
  stack_start = page;
  // The page holding the stack pointer is mapped (the interrupted code was using it); above
  // it, the stack is mapped up to the top recorded for this thread, if any.
  uintptr_t top = thread_stack_top;
  stack_end = top > page && top - page < ((uintptr_t)1 << 30) ? top : page + LCC_PAGE;
}

int lcc_readable_contains(uintptr_t address, size_t length) {
  uintptr_t end = address + length;
  if (end < address) return 0;
  if (address >= frame_start && end <= frame_end) return 1;
  return address >= stack_start && end <= stack_end && stack_end != 0;
}
