#ifndef LCC_READABLE_MEMORY_H
#define LCC_READABLE_MEMORY_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/// Records the calling thread's stack bounds (outside signal handlers: at install and in
/// lcc_prepare_current_thread), so a crash on this thread knows which stack pages are mapped.
void lcc_readable_record_thread_stack(void);

/// Called by the crash handler before it unwinds: the signal frame at `context` and the
/// interrupted thread's stack from `stack_pointer` to its recorded top become known-readable;
/// when the fault looks like a stack overflow, only the part of the stack recorded as mapped
/// (a pthread's whole stack; the main thread's from where it was recorded). No system calls.
void lcc_readable_begin_crash(const void *context, size_t context_size, uintptr_t stack_pointer, int signo,
                              const siginfo_t *info);

/// Whether [address, address + length) lies in memory known to be readable during this crash.
/// Async-signal-safe: compares against values set by lcc_readable_begin_crash.
int lcc_readable_contains(uintptr_t address, size_t length);

/// The crashing thread's recorded stack top when the whole stack from `address` up to it is
/// mapped, given that the walk has just read the stack word at `address`; else 0. True of a
/// thread's one-mapping stack above its recorded bottom, and of the main thread's stack
/// within its size limit (it is one mapping that only grows down). `base` receives the address
/// the thread's outermost frame lies just below (the main thread's argc, a pthread's top).
/// Async-signal-safe.
uintptr_t lcc_readable_stack_top_above(uintptr_t address, uintptr_t *base);

#endif
