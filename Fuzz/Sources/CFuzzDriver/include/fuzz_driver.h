#ifndef FUZZ_DRIVER_H
#define FUZZ_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (compiler-rt, linked by -sanitize=fuzzer). SwiftPM links every executable
/// with `main` aliased to `<module>_main`, so each fuzz target defines that symbol and hands
/// its command line to this, instead of using libFuzzer's own `main`.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
