// Registered unwind tables. libunwind consults its list of dynamically registered unwind info
// before its own lookup; its own lookup wraps dl_iterate_phdr in two sigprocmask calls per
// frame (about 90 system calls in the first unwind of a crash, measured with strace). The
// registered tables are the very .eh_frame_hdr binary-search tables that lookup would find,
// captured once at install, so a crash walk reads memory only. Runs outside the handler.
#define _GNU_SOURCE
#include "unwind_tables.h"

#include <elf.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>

#define LCC_MAX_TABLES 1024

static unw_dyn_info_t tables[LCC_MAX_TABLES];
static int registered;

static int capture(struct dl_phdr_info *info, size_t size, void *context) {
  (void)size;
  int *count = context;
  uintptr_t header = 0;
  for (int index = 0; index < info->dlpi_phnum; index++) {
    if (info->dlpi_phdr[index].p_type == PT_GNU_EH_FRAME) header = info->dlpi_addr + info->dlpi_phdr[index].p_vaddr;
  }
  if (!header) return 0;
  const unsigned char *bytes = (const unsigned char *)header;
  // Version 1; eh_frame_ptr pcrel|sdata4; fde_count udata4; table datarel|sdata4: what the
  // mainstream linkers write. Any other layout is left to libunwind's own lookup.
  if (bytes[0] != 1 || bytes[1] != 0x1b || bytes[2] != 0x03 || bytes[3] != 0x3b) return 0;
  uint32_t entries;
  memcpy(&entries, bytes + 8, sizeof entries);
  for (int index = 0; index < info->dlpi_phnum && *count < LCC_MAX_TABLES; index++) {
    const ElfW(Phdr) *segment = &info->dlpi_phdr[index];
    if (segment->p_type != PT_LOAD || !(segment->p_flags & PF_X)) continue;
    unw_dyn_info_t *table = &tables[*count];
    memset(table, 0, sizeof *table);
    table->format = UNW_INFO_FORMAT_REMOTE_TABLE;
    table->start_ip = info->dlpi_addr + segment->p_vaddr;
    table->end_ip = table->start_ip + segment->p_memsz;
    table->u.rti.segbase = header;       // datarel offsets are relative to the header
    table->u.rti.table_data = header + 12;
    // Each entry is two int32 (start offset, FDE offset); the length is in unw_word_t units.
    table->u.rti.table_len = entries * 8 / sizeof(unw_word_t);
    (*count)++;
  }
  return 0;
}

/// Maps [start, end) of a file mapping into the page tables: one MADV_POPULATE_READ (Linux
/// 5.14), or a read of each page on older kernels.
static void populate(uintptr_t start, uintptr_t end) {
  uintptr_t page = start & ~(uintptr_t)4095;
  if (end <= page) return;
  if (madvise((void *)page, end - page, 22 /* MADV_POPULATE_READ */) == 0) return;
  for (; page < end; page += 4096) (void)*(volatile const char *)page;
}

static int prefault(struct dl_phdr_info *info, size_t size, void *context) {
  (void)size;
  (void)context;
  const char *name = info->dlpi_name ? info->dlpi_name : "";
  // The executable has an empty name; a Swift trap stops in the runtime, abort() in libc.
  if (name[0] && !strstr(name, "/libswiftCore.so") && !strstr(name, "/libc.so")) return 0;
  for (int index = 0; index < info->dlpi_phnum; index++) {
    if (info->dlpi_phdr[index].p_type != PT_GNU_EH_FRAME) continue;
    const unsigned char *header = (const unsigned char *)(info->dlpi_addr + info->dlpi_phdr[index].p_vaddr);
    if (header[0] != 1 || header[1] != 0x1b || header[2] != 0x03 || header[3] != 0x3b) return 0;
    uint32_t entries;
    int32_t eh_frame_offset;
    memcpy(&entries, header + 8, sizeof entries);
    memcpy(&eh_frame_offset, header + 4, sizeof eh_frame_offset);
    populate((uintptr_t)header, (uintptr_t)header + 12 + (uintptr_t)entries * 8);
    // .eh_frame has no length of its own here; it ends its segment but for small tables
    // (measured: within 25% of its size for the toolchain's and Debian's libraries).
    uintptr_t eh_frame = (uintptr_t)header + 4 + (intptr_t)eh_frame_offset;
    for (int load = 0; load < info->dlpi_phnum; load++) {
      const ElfW(Phdr) *segment = &info->dlpi_phdr[load];
      uintptr_t start = info->dlpi_addr + segment->p_vaddr;
      uintptr_t end = start + segment->p_memsz;
      if (segment->p_type == PT_LOAD && eh_frame >= start && eh_frame < end) populate(eh_frame, end);
    }
  }
  return 0;
}

void lcc_unwind_tables_prefault(void) { dl_iterate_phdr(prefault, NULL); }

void lcc_unwind_tables_register(void (*register_info)(unw_dyn_info_t *), void (*cancel_info)(unw_dyn_info_t *)) {
  for (int index = 0; index < registered; index++) cancel_info(&tables[index]);
  registered = 0;
  int count = 0;
  dl_iterate_phdr(capture, &count);
  // libunwind walks its list from the most recently registered entry, on every frame. Going
  // backwards leaves the list in load order: the executable, then its direct dependencies
  // (the Swift runtime, libc), where almost every crash frame lies, so a lookup ends within
  // a few entries instead of walking cold memory through all of them.
  for (int index = count - 1; index >= 0; index--) register_info(&tables[index]);
  registered = count;
}
