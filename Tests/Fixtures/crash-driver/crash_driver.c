// Drives the crash handler (Sources/CCrashCapture) from C, so it can be built and run on an
// architecture the Swift toolchain here does not target: CI/aarch64-crash-check builds it for
// aarch64 and runs it under qemu-user. Usage: crash_driver FAULT EVENTS_FILE, with FAULT one of
// segv, abort, trap, overflow. Before the fault it appends a `driver` line to EVENTS_FILE
// (its load base and the trap instruction's address), which the check needs to tell the
// record's program counters apart; then the handler appends the `crash` record and the
// process dies by the signal.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "CCrashCapture.h"

static int events_fd = -1;

// Each fault in a function of its own, never inlined, so the record can name it.
__attribute__((noinline)) void faulting_segv(void) { *(volatile int *)(uintptr_t)0x10 = 1; }

__attribute__((noinline)) void faulting_abort(void) {
  abort();
  __asm__ volatile("");  // a frame of its own, not a tail call
}

extern const char trap_instruction[];
__attribute__((noinline)) void faulting_trap(void) {
#if defined(__aarch64__)
  __asm__ volatile(".globl trap_instruction\ntrap_instruction:\n  brk #0x3e8" ::: "memory");
#elif defined(__x86_64__)
  __asm__ volatile(".globl trap_instruction\ntrap_instruction:\n  int3" ::: "memory");
#endif
  __asm__ volatile("");
}

// Runaway recursion: each frame keeps a buffer live, so the guard page is reached quickly. The
// bound is never reached (the stack is 256 KiB); it keeps compilers from calling it infinite.
static volatile int recursion_limit = 1 << 30;
__attribute__((noinline)) int recurse(int depth) {
  volatile char pad[256];
  pad[depth % 256] = (char)depth;
  if (depth >= recursion_limit) return pad[0];
  return recurse(depth + 1) + pad[0];
}

__attribute__((noinline)) void *overflow_thread(void *unused) {
  (void)unused;
  lcc_prepare_current_thread();  // its alternate signal stack: the overflow is caught on it
  recurse(0);
  return NULL;
}

__attribute__((noinline)) void faulting_overflow(void) {
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setstacksize(&attributes, 256 * 1024);
  pthread_t thread;
  if (pthread_create(&thread, &attributes, overflow_thread, NULL) != 0) exit(3);
  pthread_join(thread, NULL);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s segv|abort|trap|overflow EVENTS_FILE\n", argv[0]);
    return 2;
  }
  events_fd = open(argv[2], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (events_fd < 0) {
    perror(argv[2]);
    return 2;
  }
  Dl_info self;
  if (!dladdr((void *)main, &self)) return 2;
  dprintf(events_fd, "{\"event\":\"driver\",\"fault\":\"%s\",\"base\":\"%#lx\",\"trap\":\"%#lx\"}\n", argv[1],
          (unsigned long)(uintptr_t)self.dli_fbase, (unsigned long)(uintptr_t)trap_instruction);
  lcc_options options;
  memset(&options, 0, sizeof options);
  options.events_fd = events_fd;
  options.report_directory_fd = -1;  // no crash report file: the events line is enough here
  options.report_group = -1;
  char error[512] = {0};
  if (lcc_install(&options, error, sizeof error) != 0) {
    fprintf(stderr, "lcc_install: %s\n", error);
    return 2;
  }
  if (!strcmp(argv[1], "segv")) faulting_segv();
  else if (!strcmp(argv[1], "abort")) faulting_abort();
  else if (!strcmp(argv[1], "trap")) faulting_trap();
  else if (!strcmp(argv[1], "overflow")) faulting_overflow();
  else {
    fprintf(stderr, "unknown fault %s\n", argv[1]);
    return 2;
  }
  fprintf(stderr, "the %s fault did not kill the process\n", argv[1]);
  return 1;
}
