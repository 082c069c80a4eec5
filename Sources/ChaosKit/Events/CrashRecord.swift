import Foundation

/// The `crash` line written by the signal handler: raw PCs and the module map.
public struct CrashRecord: Codable, Sendable, Equatable {
  /// A loaded ELF object at crash time.
  public struct Module: Codable, Sendable, Equatable {
    /// File path.
    public var path: String
    /// Load bias (`dlpi_addr`), hex.
    public var base: String
    /// Lowest mapped address, hex.
    public var start: String
    /// One past the highest mapped address, hex.
    public var end: String
    /// GNU build id, hex, when present.
    public var buildID: String?

    enum CodingKeys: String, CodingKey {
      case path, base, start, end
      case buildID = "build_id"
    }
  }

  /// Process id.
  public var pid: Int
  /// Signal number.
  public var signal: Int32
  /// Signal name, e.g. `SIGSEGV`.
  public var signalName: String
  /// `si_code`.
  public var code: Int
  /// Fault address, hex.
  public var addr: String
  /// Kernel thread id of the crashing thread.
  public var thread: Int
  /// Its name.
  public var threadName: String
  /// Whether it was the main thread.
  public var mainThread: Bool
  /// Whether `launchingFinished()` had been called.
  public var afterLaunch: Bool
  /// CLOCK_MONOTONIC ns at handler entry.
  public var entered: UInt64
  /// After the stack walk.
  public var unwound: UInt64
  /// After formatting, immediately before the write.
  public var done: UInt64
  /// Return addresses, hex; the first is the faulting PC.
  public var frames: [String]
  /// How deep the stack was.
  public var framesTotal: Int
  /// Frames dropped in the middle (cap reached).
  public var framesOmitted: Int
  /// Where in `frames` the omission happened.
  public var framesOmittedAt: Int
  /// The module map captured at install.
  public var modules: [Module]

  enum CodingKeys: String, CodingKey {
    case pid, signal, code, addr, thread, entered, unwound, done, frames, modules
    case signalName = "signal_name"
    case threadName = "thread_name"
    case mainThread = "main_thread"
    case afterLaunch = "after_launch"
    case framesTotal = "frames_total"
    case framesOmitted = "frames_omitted"
    case framesOmittedAt = "frames_omitted_at"
  }

  /// Decodes a record; only `signal`, `frames` and `modules` are required (a foreign target's
  /// handler may not know the rest: see Docs/Protocol.md), the others default to 0 / "" / false.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    func optional<T: Decodable>(_ key: CodingKeys, _ fallback: T) throws -> T {
      try container.decodeIfPresent(T.self, forKey: key) ?? fallback
    }
    signal = try container.decode(Int32.self, forKey: .signal)
    frames = try container.decode([String].self, forKey: .frames)
    modules = try container.decode([Module].self, forKey: .modules)
    pid = try optional(.pid, 0)
    signalName = try optional(.signalName, Signals.name(signal))
    code = try optional(.code, 0)
    addr = try optional(.addr, "0x0")
    thread = try optional(.thread, 0)
    threadName = try optional(.threadName, "")
    mainThread = try optional(.mainThread, false)
    afterLaunch = try optional(.afterLaunch, false)
    entered = try optional(.entered, 0)
    unwound = try optional(.unwound, entered)
    done = try optional(.done, entered)
    framesTotal = try optional(.framesTotal, frames.count)
    framesOmitted = try optional(.framesOmitted, 0)
    framesOmittedAt = try optional(.framesOmittedAt, 0)
  }

  /// Handler entry → record written, in microseconds.
  public var handlerLatencyMicroseconds: Double { Double(done &- entered) / 1_000 }

  /// Decodes the record from a `crash` event.
  public init(event: TargetEvent) throws {
    let data = try JSONEncoder().encode(event.fields)
    self = try JSONDecoder().decode(CrashRecord.self, from: data)
  }

  /// Decodes a record from its JSON text (one line).
  public init(json: Data) throws {
    self = try JSONDecoder().decode(CrashRecord.self, from: json)
  }
}
