#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// CLOCK_MONOTONIC in nanoseconds: the time base every event and crash record shares.
public enum MonotonicClock {
  /// Nanoseconds since an unspecified point (boot on Linux); comparable across processes.
  public static func nanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
  }
}
