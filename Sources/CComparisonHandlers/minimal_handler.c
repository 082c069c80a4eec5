#include "CComparisonHandlers.h"
#include "alternate_stack_install.h"

#include <signal.h>

// Records nothing: restores the default action and raises the signal again, so the process
// still dies by it. Calls signal and raise, both async-signal-safe.
static void minimal_handler(int signo) {
  signal(signo, SIG_DFL);
  raise(signo);
}

int cmp_install_minimal_handler(void) { return cmp_install_on_alternate_stack(minimal_handler); }
