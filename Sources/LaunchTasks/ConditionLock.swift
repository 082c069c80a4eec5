import Failpoints

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A pthread mutex and condition variable, the condition timed on CLOCK_MONOTONIC (a wall-clock
/// step cannot stretch or cut a wait). What `Execution` used Foundation's `NSCondition` for,
/// without Foundation.
final class ConditionLock: @unchecked Sendable {  // the pthread objects are the synchronization
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private let condition: UnsafeMutablePointer<pthread_cond_t>

  init() {
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
    condition = .allocate(capacity: 1)
    condition.initialize(to: pthread_cond_t())
    var attributes = pthread_condattr_t()
    pthread_condattr_init(&attributes)
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
    pthread_cond_init(condition, &attributes)
    pthread_condattr_destroy(&attributes)
  }

  deinit {
    pthread_cond_destroy(condition)
    condition.deallocate()
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  func lock() { pthread_mutex_lock(mutex) }
  func unlock() { pthread_mutex_unlock(mutex) }
  func broadcast() { pthread_cond_broadcast(condition) }

  /// Waits for a broadcast (or a spurious wake-up). Caller holds the lock.
  func wait() { pthread_cond_wait(condition, mutex) }

  /// Waits for a broadcast until `deadline` (`MonotonicClock.nanoseconds()`); false when the
  /// deadline passed. Caller holds the lock.
  @discardableResult
  func wait(untilNanoseconds deadline: UInt64) -> Bool {
    var time = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
    return pthread_cond_timedwait(condition, mutex, &time) == 0
  }

  /// `MonotonicClock.nanoseconds()` `seconds` from now.
  static func deadline(in seconds: Double) -> UInt64 { MonotonicClock.nanoseconds() + UInt64(seconds * 1e9) }
}

/// Starts `body` on a new detached pthread with a stack of `stackSize` bytes; false when the
/// thread could not be created.
@discardableResult
func startDetachedThread(stackSize: Int, _ body: @escaping @Sendable () -> Void) -> Bool {
  final class Work {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
  }
  var attributes = pthread_attr_t()
  pthread_attr_init(&attributes)
  defer { pthread_attr_destroy(&attributes) }
  pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
  pthread_attr_setstacksize(&attributes, stackSize)
  let work = Unmanaged.passRetained(Work(body)).toOpaque()
  var thread = pthread_t()
  let created = pthread_create(
    &thread, &attributes,
    { context in
      Unmanaged<Work>.fromOpaque(context!).takeRetainedValue().body()
      return nil
    }, work)
  if created != 0 { Unmanaged<Work>.fromOpaque(work).release() }
  return created == 0
}
