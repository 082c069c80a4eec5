#define _GNU_SOURCE
#include "CComparisonHandlers.h"

#include <execinfo.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int output_fd = 2;

static void glibc_backtrace_handler(int signo) {
  void *frames[128];
  int count = backtrace(frames, 128);
  backtrace_symbols_fd(frames, count, output_fd);
  signal(signo, SIG_DFL);
  raise(signo);
}

int cmp_install_glibc_backtrace_handler(int fd) {
  output_fd = fd;
  void *warm[4];
  backtrace(warm, 4);  // loads libgcc_s now rather than in the handler
  size_t size = 256 * 1024;
  void *stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (stack == MAP_FAILED) return -1;
  stack_t alternate = {.ss_sp = stack, .ss_size = size, .ss_flags = 0};
  if (sigaltstack(&alternate, NULL) != 0) return -1;
  int signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP};
  for (size_t index = 0; index < sizeof signals / sizeof signals[0]; index++) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = glibc_backtrace_handler;
    action.sa_flags = SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    if (sigaction(signals[index], &action, NULL) != 0) return -1;
  }
  return 0;
}
