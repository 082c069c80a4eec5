#ifndef C_COMPARISON_HANDLERS_H
#define C_COMPARISON_HANDLERS_H

/// Benchmark comparison only (`chaos bench`): the handler people write by hand — glibc's
/// backtrace() + backtrace_symbols_fd() to `fd` — on the same signals and an alternate stack.
/// Not async-signal-safe in general (backtrace may load libgcc_s); warmed up at install.
/// Returns 0, or -1 with errno set.
int cmp_install_glibc_backtrace_handler(int fd);

/// Benchmark comparison only: a handler that records nothing, on the same signals and an
/// alternate stack — what catching a crash costs before any recording. Returns 0, or -1 with
/// errno set.
int cmp_install_minimal_handler(void);

#endif
