#ifndef CMP_ALTERNATE_STACK_INSTALL_H
#define CMP_ALTERNATE_STACK_INSTALL_H

/// Installs `handler` for SEGV, BUS, ILL, FPE, ABRT and TRAP on a fresh 256 KiB alternate stack
/// of the calling thread. Returns 0, or -1 with errno set.
int cmp_install_on_alternate_stack(void (*handler)(int));

#endif
