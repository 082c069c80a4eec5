#define _GNU_SOURCE
#include "CComparisonHandlers.h"
#include "alternate_stack_install.h"

#include <execinfo.h>
#include <signal.h>
#include <stdlib.h>
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
  return cmp_install_on_alternate_stack(glibc_backtrace_handler);
}
