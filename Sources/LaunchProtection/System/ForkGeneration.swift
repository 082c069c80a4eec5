import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Counts the forks this process image went through, so that a descriptor kept across calls
/// (the state store's lock and state file) is not reused by a forked child: the child's copy
/// shares the parent's open file, and with it the parent's `flock`, so the two would no longer
/// exclude each other. A `pthread_atfork` child handler counts, at no cost to the parent.
enum ForkGeneration {
  /// The current generation; the first call registers the handler (before it, no descriptor
  /// was kept, so no fork before it matters).
  static var current: UInt64 {
    _ = registered
    return counter.load(ordering: .acquiring)
  }

  private static let counter = Atomic<UInt64>(0)

  private static let registered: Bool = {
    pthread_atfork(nil, nil) { ForkGeneration.counter.add(1, ordering: .releasing) }
    return true
  }()
}
