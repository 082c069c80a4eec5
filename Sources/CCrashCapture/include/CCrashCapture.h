#ifndef C_CRASH_CAPTURE_H
#define C_CRASH_CAPTURE_H

#include <stdint.h>
#include <stddef.h>

// ---------------------------------------------------------------------------
// SIGTERM marker: lets the next launch tell a clean shutdown from a crash.
// ---------------------------------------------------------------------------

/// Installs a SIGTERM handler that creates the (empty) file at `path` and then lets
/// SIGTERM do what it did before (the previous handler, or the default: termination).
/// Does nothing when SIGTERM is ignored. Returns 0, or -1 with errno set.
int lcc_term_marker_install(const char *path);

/// Restores the SIGTERM disposition that `lcc_term_marker_install` replaced.
void lcc_term_marker_uninstall(void);

#endif
