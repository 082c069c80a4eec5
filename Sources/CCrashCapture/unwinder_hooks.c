// What the private libunwind's libc imports do while a thread records its crash. Outside a
// crash every wrapper forwards to libc unchanged. Inside one (this thread only):
//
//   sigprocmask: skipped. libunwind blocks every signal around each internal lock so that a
//     handler on the same thread cannot deadlock on it; here a nested fault is caught by the
//     handler's re-entry guard instead (~50 system calls a crash saved).
//   mincore, read, write, syscall(SYS_write): libunwind (built with conservative checks)
//     validates each page it has not seen with mincore, then drains a pipe and writes one byte
//     of the page into it. For pages readable_memory.c knows are mapped (the signal frame, the
//     interrupted stack) the three calls are answered without entering the kernel; they cost
//     2-9 µs each on a crash's cold path. Any other page gets the real calls.
//   __tls_get_addr: libunwind builds with per-thread caches keep the validation cache in
//     thread-local storage (Debian's 1.6.2 uses a global one and never calls this while
//     unwinding), and a dlopen'ed library's TLS is allocated with malloc on a thread's first
//     access, which is not async-signal-safe (a crash inside malloc would deadlock). The
//     crashing thread gets a zeroed static block instead; one thread records a crash at a time.
//
// The wrappers are installed by rewriting the copy's PLT slots (it was loaded RTLD_LOCAL and
// only the crash handler calls it), so nothing else in the process is affected.
#define _GNU_SOURCE
#include "unwinder_hooks.h"
#include "readable_memory.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/// `tls_index` of the x86_64 and AArch64 psABIs.
typedef struct lcc_tls_index {
  unsigned long module;
  unsigned long offset;
} lcc_tls_index;

enum { probe_idle, probe_answered, probe_drained };

static __thread int in_crash __attribute__((tls_model("initial-exec")));
static __thread int probe __attribute__((tls_model("initial-exec")));
static _Alignas(64) unsigned char crash_tls[512];
static size_t page_size = 4096;  // the kernel's, set when the hooks are installed

static int (*real_sigprocmask)(int, const sigset_t *, sigset_t *);
static int (*real_mincore)(void *, size_t, unsigned char *);
static ssize_t (*real_read)(int, void *, size_t);
static ssize_t (*real_write)(int, const void *, size_t);
static long (*real_syscall)(long, ...);
static void *(*real_tls_get_addr)(lcc_tls_index *);

static int quiet_sigprocmask(int how, const sigset_t *set, sigset_t *old) {
  if (in_crash) {
    if (old) memset(old, 0, sizeof *old);
    return 0;
  }
  return real_sigprocmask(how, set, old);
}

static int quiet_mincore(void *address, size_t length, unsigned char *vector) {
  if (in_crash && lcc_readable_contains((uintptr_t)address, length ? length : 1)) {
    // One byte per page of the caller's vector, in the kernel's page size.
    size_t pages = (length + page_size - 1) / page_size;
    for (size_t page = 0; page < pages; page++) vector[page] = 1;
    probe = probe_answered;
    return 0;
  }
  probe = probe_idle;
  return real_mincore(address, length, vector);
}

// libunwind drains its pipe before each probe write; an empty pipe reads as EAGAIN.
static ssize_t quiet_read(int fd, void *buffer, size_t count) {
  if (in_crash && probe == probe_answered) {
    probe = probe_drained;
    errno = EAGAIN;
    return -1;
  }
  return real_read(fd, buffer, count);
}

static ssize_t quiet_write(int fd, const void *buffer, size_t count) {
  if (in_crash && probe == probe_drained) {
    probe = probe_idle;
    return count ? 1 : 0;
  }
  return real_write(fd, buffer, count);
}

static long quiet_syscall(long number, ...) {
  va_list arguments;
  va_start(arguments, number);
  long a = va_arg(arguments, long), b = va_arg(arguments, long), c = va_arg(arguments, long);
  long d = va_arg(arguments, long), e = va_arg(arguments, long), f = va_arg(arguments, long);
  va_end(arguments);
  if (in_crash && number == SYS_write && probe == probe_drained) {
    probe = probe_idle;
    return c ? 1 : 0;
  }
  return real_syscall(number, a, b, c, d, e, f);
}

static void *quiet_tls_get_addr(lcc_tls_index *index) {
  if (in_crash && index->offset < sizeof crash_tls - 64) return crash_tls + index->offset;
  return real_tls_get_addr(index);
}

void lcc_unwinder_enter_crash(void) {
  // Pages cached as valid by an earlier walk may have been unmapped since: start empty.
  memset(crash_tls, 0, sizeof crash_tls);
  probe = probe_idle;
  in_crash = 1;
}

void lcc_unwinder_leave_crash(void) { in_crash = 0; }

typedef struct lcc_import_hook {
  const char *name;
  void *wrapper;
  void **original;
} lcc_import_hook;

void lcc_unwinder_hook_imports(void *library) {
  // Once per process (the caller holds the install lock): a second pass would find our own
  // wrappers in the slots and take them for the originals, and a wrapper that forwards to
  // itself recurses until the stack overflows (1.0.0, two installs at once).
  static int hooked;
  if (hooked) return;
  hooked = 1;
  // Forwarding needs the originals even if a slot is never found.
  real_sigprocmask = sigprocmask;
  real_mincore = mincore;
  real_read = read;
  real_write = write;
  real_syscall = syscall;
  lcc_import_hook hooks[] = {
    {"sigprocmask", (void *)quiet_sigprocmask, (void **)&real_sigprocmask},
    {"mincore", (void *)quiet_mincore, (void **)&real_mincore},
    {"read", (void *)quiet_read, (void **)&real_read},
    {"write", (void *)quiet_write, (void **)&real_write},
    {"syscall", (void *)quiet_syscall, (void **)&real_syscall},
    {"__tls_get_addr", (void *)quiet_tls_get_addr, (void **)&real_tls_get_addr},
  };
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
  page_size = (size_t)sysconf(_SC_PAGESIZE);
  for (size_t index = 0; index < relocations_size / sizeof(ElfW(Rela)); index++) {
    const char *name = strings + symbols[ELF64_R_SYM(relocations[index].r_info)].st_name;
    for (size_t hook = 0; hook < sizeof hooks / sizeof hooks[0]; hook++) {
      if (strcmp(name, hooks[hook].name) != 0) continue;
      void **slot = (void **)(base + relocations[index].r_offset);
      void *start = (void *)((uintptr_t)slot & ~(uintptr_t)(page_size - 1));
      // RELRO may have made the slot read-only under full RELRO; the copy was loaded RTLD_NOW.
      if (mprotect(start, page_size, PROT_READ | PROT_WRITE) != 0) return;
      if (*slot == hooks[hook].wrapper) continue;  // never our own wrapper as the original
      if (*slot) *hooks[hook].original = *slot;
      *slot = hooks[hook].wrapper;
    }
  }
}
