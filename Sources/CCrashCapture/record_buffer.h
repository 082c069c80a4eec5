#ifndef LCC_RECORD_BUFFER_H
#define LCC_RECORD_BUFFER_H

#include <stddef.h>
#include <stdint.h>

/// A fixed, preallocated text buffer filled without allocation or locale: safe in a signal
/// handler. Writes past the end are dropped and remembered in `overflow`.
typedef struct lcc_buffer {
  char *data;
  size_t size;
  size_t length;
  int overflow;
} lcc_buffer;

void lcc_buffer_reset(lcc_buffer *buffer);
void lcc_buffer_bytes(lcc_buffer *buffer, const char *bytes, size_t count);
void lcc_buffer_string(lcc_buffer *buffer, const char *text);
void lcc_buffer_unsigned(lcc_buffer *buffer, uint64_t value);
void lcc_buffer_signed(lcc_buffer *buffer, int64_t value);
void lcc_buffer_hex(lcc_buffer *buffer, uint64_t value);
/// Writes `text` as a JSON string literal (quotes included), escaping as JSON requires.
void lcc_buffer_json_string(lcc_buffer *buffer, const char *text);

#endif
