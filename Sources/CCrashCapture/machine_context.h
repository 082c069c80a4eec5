#ifndef LCC_MACHINE_CONTEXT_H
#define LCC_MACHINE_CONTEXT_H

// The registers the crash handler reads from a signal frame's ucontext_t, per architecture.
// x86_64 is built, tested and benchmarked. aarch64 is compiled (CI/cross-check-aarch64) and run
// under qemu-user from a C driver (CI/aarch64-crash-check); the Swift layer has not run there.

#include <stdint.h>
#include <ucontext.h>

#if defined(__x86_64__)
/// The interrupted program counter.
#define LCC_CONTEXT_PC(context) ((uintptr_t)((const ucontext_t *)(context))->uc_mcontext.gregs[REG_RIP])
/// The interrupted stack pointer.
#define LCC_CONTEXT_SP(context) ((uintptr_t)((const ucontext_t *)(context))->uc_mcontext.gregs[REG_RSP])
#elif defined(__aarch64__)
#define LCC_CONTEXT_PC(context) ((uintptr_t)((const ucontext_t *)(context))->uc_mcontext.pc)
#define LCC_CONTEXT_SP(context) ((uintptr_t)((const ucontext_t *)(context))->uc_mcontext.sp)
#else
#error "CCrashCapture reads the registers of x86_64 and aarch64 only"
#endif

#endif
