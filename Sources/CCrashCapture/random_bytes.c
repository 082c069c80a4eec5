#include <sys/random.h>

#include "CCrashCapture.h"

// getrandom(2) through glibc's wrapper (glibc 2.25, musl 1.1.20), never arc4random_buf
// (glibc 2.36): every distribution Swift publishes toolchains for has this one.
long lcc_random_bytes(void *buffer, size_t count) { return (long)getrandom(buffer, count, 0); }
