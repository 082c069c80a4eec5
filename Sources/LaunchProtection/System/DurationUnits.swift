extension Duration {
  /// Whole microseconds (systemd's `*_USEC` values, timers, event fields).
  package var wholeMicroseconds: Int64 {
    let (seconds, attoseconds) = components
    return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
  }
}
