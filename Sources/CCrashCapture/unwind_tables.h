#ifndef LCC_UNWIND_TABLES_H
#define LCC_UNWIND_TABLES_H

#define UNW_LOCAL_ONLY
#include <libunwind.h>

/// Registers the .eh_frame_hdr search table of every loaded object with libunwind as dynamic
/// unwind info (install time), replacing earlier registrations.
void lcc_unwind_tables_register(void (*register_info)(unw_dyn_info_t *), void (*cancel_info)(unw_dyn_info_t *));

#endif
