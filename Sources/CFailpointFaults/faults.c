#include "CFailpointFaults.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

// Volatile operands keep the compiler from proving the fault away or turning it
// into a trap instruction of its own choosing (clang emits ud2 for a visible null store).
static volatile int *volatile null_target = 0;
static volatile int zero_divisor = 0;

__attribute__((noinline)) void cf_fault_null_write(void) {
  *null_target = 42;
}

__attribute__((noinline)) void cf_fault_smashed_stack(void) {
  // The frame record (saved frame pointer, then return address) sits at the frame address on
  // x86_64 and AArch64. Nothing is mapped this low in a PIE process.
  volatile uintptr_t *frame = (volatile uintptr_t *)__builtin_frame_address(0);
  frame[0] = (uintptr_t)0xdead0000u;
  frame[1] = (uintptr_t)0xbad00000u;
  *null_target = 42;
}

__attribute__((noinline)) void cf_fault_bus(void) {
  FILE *file = tmpfile();
  if (!file) abort();
  long page = sysconf(_SC_PAGESIZE);
  // A zero-length file mapped for one page: the first access is past EOF.
  volatile char *mapping = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fileno(file), 0);
  if (mapping == MAP_FAILED) abort();
  mapping[0] = 1;
}

__attribute__((noinline)) void cf_fault_integer_divide(void) {
  volatile int numerator = 1;
  volatile int result = numerator / zero_divisor;
  (void)result;
}

__attribute__((noinline)) void cf_fault_breakpoint(void) {
  __builtin_debugtrap();
}

void cf_set_thread_name(const char *name) {
  prctl(PR_SET_NAME, name, 0, 0, 0);
}
