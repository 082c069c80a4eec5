/// What a state update survives once the call that made it has returned — the trade SQLite's
/// `synchronous` setting and PostgreSQL's `synchronous_commit` offer.
public enum Durability: String, Sendable, Codable, CaseIterable {
  /// The default. Crash-consistent against process death at any instant (crash, SIGKILL, OOM
  /// kill): an update that returned is never lost to it, because the kernel already holds it.
  /// No fsync on the launch path: each update rewrites one of two checksummed slots of the file
  /// in place. After a power loss or a kernel crash, the updates of the last few seconds (the
  /// kernel's writeback delay, 5–30 s) may be lost: the state is then an older one, or absent
  /// (a first launch), never torn. Like SQLite's `synchronous=NORMAL` in WAL mode.
  case processCrash
  /// Every update is durable on disk when it returns, power loss included: the new file is
  /// written beside the old one, fsynced, renamed over it, and the directory fsynced. Costs
  /// two fsyncs per update (about a millisecond on an SSD, more on a busy disk). Like SQLite's
  /// `synchronous=FULL`.
  case powerLoss
}
