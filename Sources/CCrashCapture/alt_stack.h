#ifndef LCC_ALT_STACK_H
#define LCC_ALT_STACK_H

#include <stddef.h>

/// Sets the size of stacks prepared from now on.
void lcc_alt_stack_set_size(size_t size);

#endif
