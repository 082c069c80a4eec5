#ifndef LCC_UNWINDER_H
#define LCC_UNWINDER_H

#define UNW_LOCAL_ONLY
#include <libunwind.h>

/// libunwind entry points resolved with dlsym from a RTLD_LOCAL copy of libunwind.so.8.
typedef struct lcc_unwinder {
  int (*init_local2)(unw_cursor_t *, unw_context_t *, int);
  int (*init_local)(unw_cursor_t *, unw_context_t *);
  int (*step)(unw_cursor_t *);
  int (*get_reg)(unw_cursor_t *, unw_regnum_t, unw_word_t *);
  int (*getcontext)(unw_context_t *);
  void (*register_dynamic)(unw_dyn_info_t *);
  void (*cancel_dynamic)(unw_dyn_info_t *);
} lcc_unwinder;

/// Loads libunwind once; 0 on success, -1 with a message.
int lcc_unwinder_load(lcc_unwinder *out, char *error, size_t error_size);

/// Unwinds the calling thread once, so libunwind's caches and lazy bindings are warm
/// before the first crash.
void lcc_unwinder_warm_up(const lcc_unwinder *unwinder);

#endif
