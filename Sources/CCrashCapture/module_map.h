#ifndef LCC_MODULE_MAP_H
#define LCC_MODULE_MAP_H

#include "record_buffer.h"

/// Renders the loaded objects as a JSON array into `buffer`; -1 if it did not fit.
int lcc_module_map_render(lcc_buffer *buffer);

#endif
