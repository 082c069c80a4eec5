#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A counting semaphore whose waits end at a `CLOCK_MONOTONIC` time (``MonotonicClock``): what
/// the library's threads wait on. Not Dispatch's semaphore: linking libdispatch runs its
/// constructor in every process that links the library (`libdispatch_init`: CPU counts, thread
/// keys), and a program that uses only the closure API then pays for it at each start.
final class WakeSignal: @unchecked Sendable {  // `count` is read and written under `mutex` only
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
  private var count = 0

  init() {
    pthread_mutex_init(mutex, nil)
    var attributes = pthread_condattr_t()
    pthread_condattr_init(&attributes)
    pthread_condattr_setclock(&attributes, clockid_t(CLOCK_MONOTONIC))
    pthread_cond_init(condition, &attributes)
    pthread_condattr_destroy(&attributes)
  }

  deinit {
    pthread_cond_destroy(condition)
    pthread_mutex_destroy(mutex)
    condition.deallocate()
    mutex.deallocate()
  }

  /// Adds one to the count and wakes one waiter.
  func signal() {
    pthread_mutex_lock(mutex)
    count += 1
    pthread_cond_signal(condition)
    pthread_mutex_unlock(mutex)
  }

  /// Waits until the count is positive, then takes one. `deadline` is a
  /// `MonotonicClock.nanoseconds()` time (nil: no limit). Returns false when the deadline came
  /// first (the count is left as it was).
  @discardableResult
  func wait(until deadline: UInt64? = nil) -> Bool {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    var limit = timespec()
    if let deadline {
      limit.tv_sec = time_t(deadline / 1_000_000_000)
      limit.tv_nsec = Int(deadline % 1_000_000_000)
    }
    while count == 0 {
      if deadline == nil {
        pthread_cond_wait(condition, mutex)
      } else if pthread_cond_timedwait(condition, mutex, &limit) == ETIMEDOUT, count == 0 {
        return false
      }
    }
    count -= 1
    return true
  }
}
