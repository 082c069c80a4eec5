#include "alternate_stack_install.h"

#include <signal.h>
#include <string.h>
#include <sys/mman.h>

int cmp_install_on_alternate_stack(void (*handler)(int)) {
  size_t size = 256 * 1024;
  void *stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (stack == MAP_FAILED) return -1;
  stack_t alternate = {.ss_sp = stack, .ss_size = size, .ss_flags = 0};
  if (sigaltstack(&alternate, NULL) != 0) return -1;
  int signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP};
  for (size_t index = 0; index < sizeof signals / sizeof signals[0]; index++) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = handler;
    action.sa_flags = SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    if (sigaction(signals[index], &action, NULL) != 0) return -1;
  }
  return 0;
}
