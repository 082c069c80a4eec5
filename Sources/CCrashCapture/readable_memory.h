#ifndef LCC_READABLE_MEMORY_H
#define LCC_READABLE_MEMORY_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/// Records the calling thread's stack top (outside signal handlers: at install and in
/// lcc_prepare_current_thread), so a crash on this thread knows which stack pages are mapped.
void lcc_readable_record_thread_stack(void);

/// Called by the crash handler before it unwinds: the signal frame at `context` and the
/// interrupted thread's stack from `stack_pointer` to its recorded top become known-readable,
/// unless the fault looks like a stack overflow (then only the signal frame). No system calls.
void lcc_readable_begin_crash(const void *context, size_t context_size, uintptr_t stack_pointer, int signo,
                              const siginfo_t *info);

/// Whether [address, address + length) lies in memory known to be readable during this crash.
/// Async-signal-safe: compares against values set by lcc_readable_begin_crash.
int lcc_readable_contains(uintptr_t address, size_t length);

#endif
