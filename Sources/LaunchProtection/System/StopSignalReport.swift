import Failpoints

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Who receives SIGTERM during the launch, reported once (``LaunchObservation/stopSignal``)
/// when it is not the usual case: SIGTERM ignored, read by a consumer the organizer cannot see,
/// or taken by a new owner during the launch.
///
/// With the default action, an app's own handler or a Dispatch signal source
/// (swift-service-lifecycle, Vapor) in place when the launch starts, every SIGTERM during the
/// launch is recorded as a stop and nothing is reported.
///
/// An owner taken during the launch leaves a short window (until the organizer adopts it) where
/// a SIGTERM reaches it alone. That window loses no stop when the app's shutdown path calls
/// `stopRequested()` and says so (``LaunchOrganizer/declareShutdownPath()``; `ServerLaunch`
/// does): ``stopCanGoUnrecorded`` tells the two apart, and the swift-log sink logs only a
/// report where a stop can go unrecorded at `notice` or above.
public struct StopSignalReport: Sendable, Equatable, CustomStringConvertible {
  /// The owner of SIGTERM. A struct, not an enum, so that a later version can name a new kind
  /// of owner without breaking a caller's `switch`: compare with the values below, or switch
  /// over ``name`` and keep a `default`.
  public struct Owner: Hashable, Sendable, CustomStringConvertible {
    /// The machine-readable name (`ignored`, `dispatch_source`, `handler`, `signalfd`), as the
    /// `stop_signal` event and log lines carry it.
    public let name: String
    /// The descriptor of a ``signalfd(descriptor:)`` owner; nil for the others.
    public let descriptor: Int32?

    /// Every kind of owner of this version, for the library's own `switch`es: the only
    /// initializer takes one, so a new kind fails to compile until each `switch` over ``known``
    /// handles it.
    @usableFromInline package enum Known: String, CaseIterable, Sendable {
      case ignored, handler, signalfd
      case dispatchSource = "dispatch_source"
    }

    @usableFromInline init(_ known: Known, descriptor: Int32? = nil) {
      self.name = known.rawValue
      self.descriptor = descriptor
    }

    /// This owner's kind as the enum the library switches over; every owner is one.
    package var known: Known { Known(rawValue: name)! }

    /// SIGTERM is ignored (`SIG_IGN`): a SIGTERM is no stop, and a stop must come another way.
    @_alwaysEmitIntoClient
    public static var ignored: Owner { Owner(.ignored) }
    /// A Dispatch signal source took SIGTERM (libdispatch's handler replaced the organizer's);
    /// the organizer added a source of its own beside it.
    @_alwaysEmitIntoClient
    public static var dispatchSource: Owner { Owner(.dispatchSource) }
    /// A handler replaced the organizer's; the organizer's went in front of it again.
    @_alwaysEmitIntoClient
    public static var handler: Owner { Owner(.handler) }
    /// SIGTERM is blocked and read through a signalfd (this descriptor) that is not
    /// libdispatch's: the organizer cannot see a stop taken there.
    public static func signalfd(descriptor: Int32) -> Owner { Owner(.signalfd, descriptor: descriptor) }

    /// Whether this is a ``signalfd(descriptor:)`` owner, whatever its descriptor.
    public var isSignalfd: Bool { known == .signalfd }

    /// The name.
    public var description: String { name }
  }

  /// Who owns SIGTERM.
  public var owner: Owner
  /// How long after the launch started the owner took SIGTERM, when it did so during the
  /// launch; nil when it owned SIGTERM from the start.
  public var takenAfter: Duration?
  /// Whether the app declared that its shutdown path calls `stopRequested()`
  /// (``LaunchOrganizer/declareShutdownPath()``) when the report was made.
  public var shutdownPathDeclared = false

  /// Creates a report.
  public init(owner: Owner, takenAfter: Duration? = nil) {
    self.owner = owner
    self.takenAfter = takenAfter
  }

  /// Whether every later SIGTERM of this launch is recorded as a stop.
  public var stopsRecorded: Bool {
    switch owner.known {
    case .dispatchSource, .handler: true
    case .ignored, .signalfd: false
    }
  }

  /// Whether a SIGTERM during this launch can end the process without its stop being recorded
  /// (the next launch would count it): SIGTERM ignored or read where the organizer cannot see
  /// it, or an owner taken during the launch, before the organizer adopted it, in an app that
  /// declared no shutdown path calling `stopRequested()`. A declared path records a stop once
  /// the app reaches it: a launch that hangs before (in a server's start) is ended by its
  /// deadline and counts as a hang.
  public var stopCanGoUnrecorded: Bool {
    !stopsRecorded || (takenAfter != nil && !shutdownPathDeclared)
  }

  /// The one call that fixes it, or what the adoption means.
  public var advice: String {
    switch owner.known {
    case .ignored:
      return "SIGTERM is ignored: call organizer.stopRequested() from whatever stops your app"
    case .signalfd:
      return
        "SIGTERM is read through signalfd \(owner.descriptor ?? -1): call organizer.stopRequested() where you read it"
    case .dispatchSource, .handler:
      break  // the organizer adopted it: what is left is the window before the adoption
    }
    if takenAfter != nil && shutdownPathDeclared {
      return "a SIGTERM that reached this owner before it was adopted is recorded by the app's shutdown path"
        + " (declareShutdownPath); nothing to do"
    }
    return "a SIGTERM that reaches this owner before the organizer adopts it (within half a millisecond,"
      + " later when every core is busy) is not recorded, and the next launch counts it as a crash;"
      + " make your signal source or handler before finishLaunching/launch, chain your handler to the"
      + " one it replaced, or call organizer.stopRequested() from your shutdown path and tell the"
      + " organizer with organizer.declareShutdownPath()"
  }

  public var description: String {
    let who =
      switch owner.known {
      case .ignored: "SIGTERM is ignored"
      case .dispatchSource: "a Dispatch signal source took SIGTERM"
      case .signalfd: "SIGTERM is read through signalfd \(owner.descriptor ?? -1)"
      case .handler: "a signal handler took SIGTERM"
      }
    let when = takenAfter.map { " \($0.wholeMicroseconds) µs into the launch" } ?? " at the launch"
    let recorded =
      !stopsRecorded
      ? "stops are not recorded" : stopCanGoUnrecorded ? "stops are recorded once adopted" : "stops are recorded"
    return "\(who)\(when); \(recorded): \(advice)"
  }
}

/// Finds a signalfd that reads a signal, when that signal is blocked on the calling thread
/// (the mark of an app that reads it itself: blocked everywhere, read with a signalfd).
enum SignalfdConsumer {
  static func find(signal: Int32) -> Int32? {
    var blocked = sigset_t()
    guard pthread_sigmask(SIG_BLOCK, nil, &blocked) == 0, sigismember(&blocked, signal) == 1 else { return nil }
    guard let directory = opendir("/proc/self/fdinfo") else { return nil }
    defer { closedir(directory) }
    let bit = UInt64(1) << UInt64(signal - 1)
    while let entry = readdir(directory) {
      let name = DirectoryEntry.string(entry)
      guard let descriptor: Int32 = IntegerText.value(name),
        let bytes = DurableFile.readSmallProcFile("/proc/self/fdinfo/" + name),
        let mask = signalMask(inFdinfo: bytes)
      else { continue }
      if mask & bit != 0 { return descriptor }
    }
    return nil
  }

  /// The hexadecimal value of fdinfo's `sigmask:` line (signalfd descriptors only).
  static func signalMask(inFdinfo bytes: [UInt8]) -> UInt64? {
    let key = Array("sigmask:".utf8)
    for line in bytes.split(separator: UInt8(ascii: "\n")) where line.starts(with: key) {
      let digits = line.dropFirst(key.count).filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
      return IntegerText.value(String(decoding: digits, as: UTF8.self), radix: 16)
    }
    return nil
  }
}
