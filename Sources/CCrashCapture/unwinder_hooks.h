#ifndef LCC_UNWINDER_HOOKS_H
#define LCC_UNWINDER_HOOKS_H

/// Points the private libunwind's imports of sigprocmask, mincore, read, write, syscall and
/// __tls_get_addr at wrappers that behave differently only on a thread inside
/// lcc_unwinder_enter_crash. Runs once, at load.
void lcc_unwinder_hook_imports(void *library);

/// Marks the calling thread as recording a crash (the wrappers take their crash paths).
void lcc_unwinder_enter_crash(void);

/// Ends lcc_unwinder_enter_crash for the calling thread.
void lcc_unwinder_leave_crash(void);

#endif
