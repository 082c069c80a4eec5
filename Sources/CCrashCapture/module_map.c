// The module map: every loaded ELF object's path, load range and GNU build id, rendered as
// JSON once at install (never in the handler) so the handler only copies bytes.
#define _GNU_SOURCE
#include "module_map.h"

#include <elf.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  lcc_buffer *buffer;
  int count;
  char executable[4096];
} render_state;

static void render_build_id(lcc_buffer *buffer, struct dl_phdr_info *info) {
  static const char hex[] = "0123456789abcdef";
  for (int index = 0; index < info->dlpi_phnum; index++) {
    const ElfW(Phdr) *header = &info->dlpi_phdr[index];
    if (header->p_type != PT_NOTE) continue;
    const char *cursor = (const char *)(info->dlpi_addr + header->p_vaddr);
    const char *end = cursor + header->p_memsz;
    while (cursor + sizeof(ElfW(Nhdr)) <= end) {
      const ElfW(Nhdr) *note = (const ElfW(Nhdr) *)cursor;
      const char *name = cursor + sizeof(ElfW(Nhdr));
      const unsigned char *descriptor = (const unsigned char *)(name + ((note->n_namesz + 3) & ~3u));
      if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 && memcmp(name, "GNU", 4) == 0) {
        lcc_buffer_string(buffer, ",\"build_id\":\"");
        for (unsigned byte = 0; byte < note->n_descsz; byte++) {
          char pair[2] = {hex[descriptor[byte] >> 4], hex[descriptor[byte] & 0xf]};
          lcc_buffer_bytes(buffer, pair, 2);
        }
        lcc_buffer_string(buffer, "\"");
        return;
      }
      cursor = (const char *)descriptor + ((note->n_descsz + 3) & ~3u);
    }
  }
}

static int render_module(struct dl_phdr_info *info, size_t size, void *context) {
  (void)size;
  render_state *state = context;
  const char *path = info->dlpi_name;
  if (!path || !path[0]) {
    if (state->count > 0) return 0;  // the vdso and other nameless objects: nothing to symbolize
    path = state->executable;        // the first object is the main program
  }
  uintptr_t low = UINTPTR_MAX, high = 0;
  for (int index = 0; index < info->dlpi_phnum; index++) {
    const ElfW(Phdr) *header = &info->dlpi_phdr[index];
    if (header->p_type != PT_LOAD) continue;
    uintptr_t start = info->dlpi_addr + header->p_vaddr;
    if (start < low) low = start;
    if (start + header->p_memsz > high) high = start + header->p_memsz;
  }
  if (high == 0) return 0;
  lcc_buffer_string(state->buffer, state->count ? ",{\"path\":" : "{\"path\":");
  lcc_buffer_json_string(state->buffer, path);
  lcc_buffer_string(state->buffer, ",\"base\":\"");
  lcc_buffer_hex(state->buffer, info->dlpi_addr);
  lcc_buffer_string(state->buffer, "\",\"start\":\"");
  lcc_buffer_hex(state->buffer, low);
  lcc_buffer_string(state->buffer, "\",\"end\":\"");
  lcc_buffer_hex(state->buffer, high);
  lcc_buffer_string(state->buffer, "\"");
  render_build_id(state->buffer, info);
  lcc_buffer_string(state->buffer, "}");
  state->count++;
  return 0;
}

int lcc_module_map_render(lcc_buffer *buffer) {
  render_state state = {.buffer = buffer, .count = 0};
  ssize_t length = readlink("/proc/self/exe", state.executable, sizeof state.executable - 1);
  state.executable[length > 0 ? length : 0] = 0;
  lcc_buffer_reset(buffer);
  lcc_buffer_string(buffer, "[");
  dl_iterate_phdr(render_module, &state);
  lcc_buffer_string(buffer, "]");
  return buffer->overflow ? -1 : 0;
}
