#ifndef LCC_UNWIND_TABLES_H
#define LCC_UNWIND_TABLES_H

#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <stdint.h>

/// Registers the .eh_frame_hdr search table of every loaded object with libunwind as dynamic
/// unwind info (install time), replacing earlier registrations.
void lcc_unwind_tables_register(void (*register_info)(unw_dyn_info_t *), void (*cancel_info)(unw_dyn_info_t *));

/// Maps the unwind tables of the objects where crashes usually start (the executable, the
/// Swift runtime, libc) into the page tables, so a crash's first lookups do not fault.
/// Install time only; costs one madvise per table.
void lcc_unwind_tables_prefault(void);

/// Whether `address` lies in the executable segment of an object registered at install.
/// Async-signal-safe: reads the registered table; remembers the last segment that matched.
int lcc_unwind_tables_cover(uintptr_t address);

#endif
