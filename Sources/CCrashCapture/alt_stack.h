#ifndef LCC_ALT_STACK_H
#define LCC_ALT_STACK_H

#include <stddef.h>

/// Sets the size of stacks prepared from now on.
void lcc_alt_stack_set_size(size_t size);

/// Maps a guarded alternate stack and installs it for the calling thread; async-signal-safe.
/// Returns the mapping, or NULL (failure, or the thread already has one).
void *lcc_alt_stack_map_and_install(void);

#endif
