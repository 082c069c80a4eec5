// Async-signal-safe formatting over preallocated memory. The only libc call is memcpy
// (async-signal-safe since POSIX.1-2016, XSH 2.4.3).
#include "record_buffer.h"

#include <string.h>

void lcc_buffer_reset(lcc_buffer *buffer) {
  buffer->length = 0;
  buffer->overflow = 0;
}

void lcc_buffer_bytes(lcc_buffer *buffer, const char *bytes, size_t count) {
  size_t room = buffer->size > buffer->length ? buffer->size - buffer->length : 0;
  size_t copied = count < room ? count : room;
  char *destination = buffer->data + buffer->length;
  // Most pieces are a few bytes: a loop beats a call into libc's (possibly cold) memcpy.
  if (copied <= 32) {
    for (size_t index = 0; index < copied; index++) destination[index] = bytes[index];
  } else {
    memcpy(destination, bytes, copied);
  }
  buffer->length += copied;
  if (copied < count) buffer->overflow = 1;
}

void lcc_buffer_string(lcc_buffer *buffer, const char *text) {
  size_t count = 0;
  while (text[count]) count++;
  lcc_buffer_bytes(buffer, text, count);
}

void lcc_buffer_unsigned(lcc_buffer *buffer, uint64_t value) {
  char digits[20];
  size_t start = sizeof digits;
  do {
    digits[--start] = (char)('0' + value % 10);
    value /= 10;
  } while (value);
  lcc_buffer_bytes(buffer, digits + start, sizeof digits - start);
}

void lcc_buffer_signed(lcc_buffer *buffer, int64_t value) {
  if (value < 0) {
    lcc_buffer_bytes(buffer, "-", 1);
    lcc_buffer_unsigned(buffer, (uint64_t)0 - (uint64_t)value);
  } else {
    lcc_buffer_unsigned(buffer, (uint64_t)value);
  }
}

void lcc_buffer_hex(lcc_buffer *buffer, uint64_t value) {
  static const char hex[] = "0123456789abcdef";
  char digits[18];
  size_t start = sizeof digits;
  do {
    digits[--start] = hex[value & 0xf];
    value >>= 4;
  } while (value);
  digits[--start] = 'x';
  digits[--start] = '0';
  lcc_buffer_bytes(buffer, digits + start, sizeof digits - start);
}

void lcc_buffer_json_string(lcc_buffer *buffer, const char *text) {
  static const char hex[] = "0123456789abcdef";
  lcc_buffer_bytes(buffer, "\"", 1);
  for (const unsigned char *cursor = (const unsigned char *)text; *cursor; cursor++) {
    unsigned char character = *cursor;
    if (character == '"' || character == '\\') {
      char escaped[2] = {'\\', (char)character};
      lcc_buffer_bytes(buffer, escaped, 2);
    } else if (character < 0x20) {
      char escaped[6] = {'\\', 'u', '0', '0', hex[character >> 4], hex[character & 0xf]};
      lcc_buffer_bytes(buffer, escaped, 6);
    } else {
      lcc_buffer_bytes(buffer, (const char *)cursor, 1);
    }
  }
  lcc_buffer_bytes(buffer, "\"", 1);
}
