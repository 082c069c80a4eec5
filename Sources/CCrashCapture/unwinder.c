// Loading libunwind privately. Runs at install time only (not in the handler).
#define _GNU_SOURCE
#include "unwinder.h"
#include "unwinder_hooks.h"

#include <dlfcn.h>
#include <stdio.h>

#define LCC_STRINGIFY2(x) #x
#define LCC_STRINGIFY(x) LCC_STRINGIFY2(x)

#if defined(__aarch64__)
// libunwind's aarch64 header makes unw_tdep_getcontext inline assembly (it stores the registers
// into the ucontext_t), not a library function: there is no symbol to look up. The context it
// takes is this function's, one frame below the caller's, which a walk steps out of.
__attribute__((noinline)) static int aarch64_getcontext(unw_context_t *context) {
  return unw_tdep_getcontext(context);
}
#endif

int lcc_unwinder_load(lcc_unwinder *out, char *error, size_t error_size) {
  // RTLD_LOCAL: libunwind's own _Unwind_* and backtrace stay out of the global scope, so
  // the Swift runtime and C++ exceptions keep using the toolchain's unwinder.
  void *library = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    snprintf(error, error_size, "cannot load libunwind.so.8 (install libunwind8): %s", dlerror());
    return -1;
  }
  // The header maps unw_* to the local-only names (_ULx86_64_* on x86_64).
  out->init_local2 = (int (*)(unw_cursor_t *, unw_context_t *, int))dlsym(library, LCC_STRINGIFY(unw_init_local2));
  out->init_local = (int (*)(unw_cursor_t *, unw_context_t *))dlsym(library, LCC_STRINGIFY(unw_init_local));
  out->step = (int (*)(unw_cursor_t *))dlsym(library, LCC_STRINGIFY(unw_step));
  out->get_reg = (int (*)(unw_cursor_t *, unw_regnum_t, unw_word_t *))dlsym(library, LCC_STRINGIFY(unw_get_reg));
#if defined(__aarch64__)
  out->getcontext = aarch64_getcontext;
#else
  out->getcontext = (int (*)(unw_context_t *))dlsym(library, LCC_STRINGIFY(unw_tdep_getcontext));
#endif
  lcc_unwinder_hook_imports(library);
  // Optional: without them libunwind finds the tables itself, only more slowly.
  out->register_dynamic = (void (*)(unw_dyn_info_t *))dlsym(library, "_U_dyn_register");
  out->cancel_dynamic = (void (*)(unw_dyn_info_t *))dlsym(library, "_U_dyn_cancel");
  if (!out->init_local2 || !out->init_local || !out->step || !out->get_reg || !out->getcontext) {
    snprintf(error, error_size, "libunwind.so.8 lacks %s/%s/%s/%s/%s", LCC_STRINGIFY(unw_init_local2),
             LCC_STRINGIFY(unw_init_local), LCC_STRINGIFY(unw_step), LCC_STRINGIFY(unw_get_reg),
             LCC_STRINGIFY(unw_tdep_getcontext));
    return -1;
  }
  return 0;
}

void lcc_unwinder_warm_up(const lcc_unwinder *unwinder) {
  unw_context_t context;
  unw_cursor_t cursor;
  if (unwinder->getcontext(&context) != 0) return;
  if (unwinder->init_local(&cursor, &context) != 0) return;
  unw_word_t ip;
  for (int depth = 0; depth < 256 && unwinder->step(&cursor) > 0; depth++) unwinder->get_reg(&cursor, UNW_REG_IP, &ip);
}

