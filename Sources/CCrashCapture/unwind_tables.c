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
#include <unistd.h>

#define LCC_MAX_TABLES 1024

static unw_dyn_info_t tables[LCC_MAX_TABLES];
static int registered;

/// The object's .eh_frame_hdr if it has the layout the mainstream linkers write (version 1;
/// eh_frame_ptr pcrel|sdata4; fde_count udata4; table datarel|sdata4), else NULL: any other
/// layout is left to libunwind's own lookup.
static const unsigned char *search_table_header(const struct dl_phdr_info *info) {
  for (int index = 0; index < info->dlpi_phnum; index++) {
    if (info->dlpi_phdr[index].p_type != PT_GNU_EH_FRAME) continue;
    const unsigned char *bytes = (const unsigned char *)(info->dlpi_addr + info->dlpi_phdr[index].p_vaddr);
    return bytes[0] == 1 && bytes[1] == 0x1b && bytes[2] == 0x03 && bytes[3] == 0x3b ? bytes : NULL;
  }
  return NULL;
}

/// The number of entries of a search table.
static uint32_t search_table_entries(const unsigned char *header) {
  uint32_t entries;
  memcpy(&entries, header + 8, sizeof entries);
  return entries;
}

static int capture(struct dl_phdr_info *info, size_t size, void *context) {
  (void)size;
  int *count = context;
  const unsigned char *bytes = search_table_header(info);
  if (!bytes) return 0;
  uintptr_t header = (uintptr_t)bytes;
  uint32_t entries = search_table_entries(bytes);
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
  uintptr_t page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
  uintptr_t page = start & ~(page_size - 1);
  if (end <= page) return;
  if (madvise((void *)page, end - page, 22 /* MADV_POPULATE_READ */) == 0) return;
  for (; page < end; page += page_size) (void)*(volatile const char *)page;
}

static int prefault(struct dl_phdr_info *info, size_t size, void *context) {
  (void)size;
  (void)context;
  const char *name = info->dlpi_name ? info->dlpi_name : "";
  // The executable has an empty name; a Swift trap stops in the runtime, abort() in libc.
  if (name[0] && !strstr(name, "/libswiftCore.so") && !strstr(name, "/libc.so")) return 0;
  const unsigned char *header = search_table_header(info);
  if (!header) return 0;
  int32_t eh_frame_offset;
  memcpy(&eh_frame_offset, header + 4, sizeof eh_frame_offset);
  populate((uintptr_t)header, (uintptr_t)header + 12 + (uintptr_t)search_table_entries(header) * 8);
  // .eh_frame has no length of its own here; it runs to near the end of its segment (only
  // small tables follow it: measured within 25% of its size for the toolchain's and Debian's
  // libraries).
  uintptr_t eh_frame = (uintptr_t)header + 4 + (intptr_t)eh_frame_offset;
  for (int index = 0; index < info->dlpi_phnum; index++) {
    const ElfW(Phdr) *segment = &info->dlpi_phdr[index];
    uintptr_t start = info->dlpi_addr + segment->p_vaddr;
    uintptr_t end = start + segment->p_memsz;
    if (segment->p_type == PT_LOAD && eh_frame >= start && eh_frame < end) populate(eh_frame, end);
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

int lcc_unwind_tables_cover(uintptr_t address) {
  // A recursion returns into the same segment frame after frame: try the last match first.
  static int last;
  int count = registered;
  if (last < count && address >= tables[last].start_ip && address < tables[last].end_ip) return 1;
  for (int index = 0; index < count; index++) {
    if (address >= tables[index].start_ip && address < tables[index].end_ip) {
      last = index;
      return 1;
    }
  }
  return 0;
}
