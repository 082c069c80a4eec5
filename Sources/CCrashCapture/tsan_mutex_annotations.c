// ThreadSanitizer builds only (CI/tsan): teaches TSan the contended path of Swift's
// Synchronization.Mutex, which it cannot see. Compiled to nothing in every other build.
//
// Mutex's fast path is an inlined compare-exchange that TSan instruments. Under contention the
// lock goes through _MutexHandle._lockSlow/_unlockSlow in libswiftSynchronization.so, which is
// not instrumented: a PI futex there hands the lock over in the kernel, so TSan sees two
// threads touch the protected value with no acquire between them and reports a race that is
// not one (a four-thread counter under one Mutex, exactly right at the end, is reported by
// Swift 6.3.1 on Linux). These definitions, linked into the executable, take the place of the
// library's two functions: each calls the library's own (found with dlsym(RTLD_NEXT)) and tells
// TSan the acquire or release on the mutex's address. They stay exported (visibility default):
// the package builds CCrashCapture with -fvisibility=hidden.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>

void __tsan_acquire(void *address);
void __tsan_release(void *address);

// `self` (the address of the mutex's word) travels in Swift's self register.
typedef void (*lcc_lock_slow)(uint32_t, void *__attribute__((swift_context))) __attribute__((swiftcall));
typedef void (*lcc_unlock_slow)(void *__attribute__((swift_context))) __attribute__((swiftcall));

#define LCC_LOCK_SLOW "$s15Synchronization12_MutexHandleV9_lockSlowyys6UInt32VF"
#define LCC_UNLOCK_SLOW "$s15Synchronization12_MutexHandleV11_unlockSlowyyF"

__attribute__((swiftcall, visibility("default"))) void $s15Synchronization12_MutexHandleV9_lockSlowyys6UInt32VF(
    uint32_t thread_id, void *self __attribute__((swift_context))) {
  static lcc_lock_slow library;
  lcc_lock_slow lock = __atomic_load_n(&library, __ATOMIC_ACQUIRE);
  if (!lock) {
    lock = (lcc_lock_slow)dlsym(RTLD_NEXT, LCC_LOCK_SLOW);
    __atomic_store_n(&library, lock, __ATOMIC_RELEASE);
  }
  lock(thread_id, self);
  __tsan_acquire(self);
}

__attribute__((swiftcall, visibility("default"))) void $s15Synchronization12_MutexHandleV11_unlockSlowyyF(
    void *self __attribute__((swift_context))) {
  static lcc_unlock_slow library;
  lcc_unlock_slow unlock = __atomic_load_n(&library, __ATOMIC_ACQUIRE);
  if (!unlock) {
    unlock = (lcc_unlock_slow)dlsym(RTLD_NEXT, LCC_UNLOCK_SLOW);
    __atomic_store_n(&library, unlock, __ATOMIC_RELEASE);
  }
  __tsan_release(self);
  unlock(self);
}
#endif
#endif
