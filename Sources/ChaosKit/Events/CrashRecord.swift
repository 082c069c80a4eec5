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
  /// Whether the walk stopped short of the thread's bottom (200,000 frames, a guard against a
  /// looping walk): `framesTotal` is then a lower bound and the last frames are not the bottom.
  public var walkStopped: Bool = false
  /// Frames past the walk's cap found by following the frame-pointer chain (which skips
  /// functions without a frame pointer, so `framesTotal` may then be a few short).
  public var framesByFramePointers: Int = 0
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
    case walkStopped = "walk_stopped"
    case framesByFramePointers = "frames_by_frame_pointers"
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
    walkStopped = try optional(.walkStopped, false)
    framesByFramePointers = try optional(.framesByFramePointers, 0)
  }

  /// Handler entry → record written, in microseconds.
  public var handlerLatencyMicroseconds: Double { Double(done &- entered) / 1_000 }

  /// Decodes the record from a `crash` event.
  public init(event: TargetEvent) throws {
    if let record = Self(fields: event.fields) {
      self = record
      return
    }
    if let text = event.text {
      self = try JSONDecoder().decode(CrashRecord.self, from: Data(text))
      return
    }
    let data = try JSONEncoder().encode(event.fields)
    self = try JSONDecoder().decode(CrashRecord.self, from: data)
  }

  /// Decodes a record from its JSON text (one line).
  public init(json: Data) throws {
    self = try JSONDecoder().decode(CrashRecord.self, from: json)
  }

  /// The record from an event's already parsed fields, when every field is what the decoder
  /// reads without question (whole numbers in range and below 2^53, where a Double is exact;
  /// strings; booleans); nil sends the event through `JSONDecoder`, which decides and names
  /// any problem. Decoding every crash line a second time cost a crash launch a tenth of the
  /// harness's time.
  init?(fields: [String: JSONValue]) {
    func whole(_ key: String) -> Int64?? {
      guard let value = fields[key] else { return .some(nil) }
      if case .null = value { return .some(nil) }
      guard case .number(let number) = value, number.rounded() == number, abs(number) < 9_007_199_254_740_992
      else { return nil }
      return .some(Int64(number))
    }
    func text(_ key: String) -> String?? {
      guard let value = fields[key] else { return .some(nil) }
      switch value {
      case .null: return .some(nil)
      case .string(let string): return .some(string)
      default: return nil
      }
    }
    func flag(_ key: String) -> Bool?? {
      guard let value = fields[key] else { return .some(nil) }
      switch value {
      case .null: return .some(nil)
      case .bool(let bool): return .some(bool)
      default: return nil
      }
    }
    func strings(_ value: JSONValue?) -> [String]? {
      guard case .array(let elements)? = value else { return nil }
      var result: [String] = []
      result.reserveCapacity(elements.count)
      for element in elements {
        guard case .string(let string) = element else { return nil }
        result.append(string)
      }
      return result
    }
    guard case .some(.some(let signal)) = whole("signal"), let signal = Int32(exactly: signal),
      let frames = strings(fields["frames"]), case .array(let moduleValues)? = fields["modules"]
    else { return nil }
    var modules: [Module] = []
    modules.reserveCapacity(moduleValues.count)
    for value in moduleValues {
      guard case .object(let module) = value, case .string(let path)? = module["path"],
        case .string(let base)? = module["base"], case .string(let start)? = module["start"],
        case .string(let end)? = module["end"]
      else { return nil }
      var buildID: String?
      switch module["build_id"] {
      case nil, .null?: buildID = nil
      case .string(let id)?: buildID = id
      default: return nil
      }
      modules.append(Module(path: path, base: base, start: start, end: end, buildID: buildID))
    }
    guard case .some(let pid) = whole("pid"), case .some(let signalName) = text("signal_name"),
      case .some(let code) = whole("code"), case .some(let addr) = text("addr"),
      case .some(let thread) = whole("thread"),
      case .some(let threadName) = text("thread_name"), case .some(let mainThread) = flag("main_thread"),
      case .some(let afterLaunch) = flag("after_launch"), case .some(let entered) = whole("entered"),
      case .some(let unwound) = whole("unwound"), case .some(let done) = whole("done"),
      case .some(let framesTotal) = whole("frames_total"), case .some(let framesOmitted) = whole("frames_omitted"),
      case .some(let framesOmittedAt) = whole("frames_omitted_at"), case .some(let walkStopped) = flag("walk_stopped"),
      case .some(let framesByFramePointers) = whole("frames_by_frame_pointers"),
      [entered, unwound, done].allSatisfy({ ($0 ?? 0) >= 0 })
    else { return nil }
    self.signal = signal
    self.frames = frames
    self.modules = modules
    self.pid = Int(pid ?? 0)
    self.signalName = signalName ?? Signals.name(signal)
    self.code = Int(code ?? 0)
    self.addr = addr ?? "0x0"
    self.thread = Int(thread ?? 0)
    self.threadName = threadName ?? ""
    self.mainThread = mainThread ?? false
    self.afterLaunch = afterLaunch ?? false
    self.entered = UInt64(entered ?? 0)
    self.unwound = unwound.map(UInt64.init) ?? self.entered
    self.done = done.map(UInt64.init) ?? self.entered
    self.framesTotal = Int(framesTotal ?? Int64(frames.count))
    self.framesOmitted = Int(framesOmitted ?? 0)
    self.framesOmittedAt = Int(framesOmittedAt ?? 0)
    self.walkStopped = walkStopped ?? false
    self.framesByFramePointers = Int(framesByFramePointers ?? 0)
  }
}
