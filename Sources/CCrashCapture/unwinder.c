// Loading libunwind privately. Runs at install time only (not in the handler).
#define _GNU_SOURCE
#include "unwinder.h"

#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define LCC_STRINGIFY2(x) #x
#define LCC_STRINGIFY(x) LCC_STRINGIFY2(x)

volatile int lcc_unwinder_in_crash;

static int (*real_sigprocmask)(int, const sigset_t *, sigset_t *);

// libunwind blocks every signal around each internal lock so that a signal handler on the same
// thread cannot deadlock on it. Inside our crash handler that protection is moot (a second fault
// on this thread is caught by the handler's re-entry guard and ends the process), so the calls
// are skipped there; everywhere else they go through. Only the private copy calls this.
static int quiet_sigprocmask(int how, const sigset_t *set, sigset_t *old) {
  if (lcc_unwinder_in_crash) {
    if (old) memset(old, 0, sizeof *old);
    return 0;
  }
  return real_sigprocmask(how, set, old);
}

/// Points the private libunwind's PLT slot for sigprocmask at quiet_sigprocmask.
static void quiet_signal_blocking(void *library) {
  struct link_map *map = NULL;
  if (dlinfo(library, RTLD_DI_LINKMAP, &map) != 0 || !map) return;
  ElfW(Addr) base = map->l_addr;
  const ElfW(Rela) *relocations = NULL;
  size_t relocations_size = 0;
  const ElfW(Sym) *symbols = NULL;
  const char *strings = NULL;
  for (const ElfW(Dyn) *entry = map->l_ld; entry->d_tag != DT_NULL; entry++) {
    // glibc relocates these d_ptr values in place; guard against a loader that does not.
    ElfW(Addr) pointer = entry->d_un.d_ptr < base ? entry->d_un.d_ptr + base : entry->d_un.d_ptr;
    switch (entry->d_tag) {
      case DT_JMPREL: relocations = (const ElfW(Rela) *)pointer; break;
      case DT_PLTRELSZ: relocations_size = entry->d_un.d_val; break;
      case DT_SYMTAB: symbols = (const ElfW(Sym) *)pointer; break;
      case DT_STRTAB: strings = (const char *)pointer; break;
    }
  }
  if (!relocations || !symbols || !strings) return;
  for (size_t index = 0; index < relocations_size / sizeof(ElfW(Rela)); index++) {
    const ElfW(Sym) *symbol = &symbols[ELF64_R_SYM(relocations[index].r_info)];
    if (strcmp(strings + symbol->st_name, "sigprocmask") != 0) continue;
    void **slot = (void **)(base + relocations[index].r_offset);
    long page = sysconf(_SC_PAGESIZE);
    void *start = (void *)((uintptr_t)slot & ~(uintptr_t)(page - 1));
    if (mprotect(start, (size_t)page, PROT_READ | PROT_WRITE) != 0) return;
    real_sigprocmask = (int (*)(int, const sigset_t *, sigset_t *))*slot;
    if (!real_sigprocmask) real_sigprocmask = sigprocmask;
    *slot = (void *)quiet_sigprocmask;
    return;
  }
}

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
  out->getcontext = (int (*)(unw_context_t *))dlsym(library, LCC_STRINGIFY(unw_tdep_getcontext));
  quiet_signal_blocking(library);
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
