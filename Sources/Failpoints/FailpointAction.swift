/// What a failpoint does when it fires.
///
/// The real faults produce the genuine signal through the genuine mechanism
/// (a null write, an integer divide, a Swift trap...), never through `raise`.
public indirect enum FailpointAction: Sendable, Equatable {
  /// Does nothing; a chain ending in `off` disables the point.
  case off
  /// Writes the message to standard error and continues.
  case print(String)
  /// Sleeps for the given milliseconds, then continues.
  case sleep(milliseconds: Int)
  /// Spins the CPU for the given milliseconds, then continues.
  case delay(milliseconds: Int)
  /// Blocks the calling thread forever.
  case hang
  /// Calls `exit` with the given status.
  case exit(code: Int32)
  /// Makes an I/O failpoint fail with this errno; a no-op elsewhere.
  case returnError(errno: Int32)
  /// Writes through a null pointer: SIGSEGV.
  case segv
  /// Touches a file mapping past its end: SIGBUS.
  case bus
  /// Integer division by zero in C: SIGFPE.
  case fpe
  /// Calls `abort()`: SIGABRT.
  case abort
  /// Executes a breakpoint instruction: SIGTRAP.
  case trap
  /// Swift `fatalError`: SIGILL on x86_64.
  case fatal
  /// Force-unwraps a nil optional: SIGILL on x86_64.
  case unwrap
  /// Overflows an `Int` addition: SIGILL on x86_64.
  case overflow
  /// Indexes an array out of range: SIGILL on x86_64.
  case outOfBounds
  /// Recurses until the stack is exhausted: SIGSEGV.
  case stackOverflow
  /// Overwrites its own return address and saved frame pointer with unmapped addresses, then
  /// writes through a null pointer: SIGSEGV with a stack that cannot be walked past one frame.
  case smashedStack
  /// Sends SIGKILL to its own process.
  case kill
  /// Allocates memory and touches it page by page until the kernel's OOM killer ends the
  /// process (under a cgroup memory limit); past `megabytes` (default 1024) still alive, it
  /// says so on standard error and exits 1, so a missing limit never takes the whole machine.
  case oom(megabytes: Int)
  /// Runs the inner action on a fresh background thread, and blocks the caller
  /// until that thread has finished (a fault on it ends the process first).
  case thread(FailpointAction)

  /// Every action keyword the spec grammar accepts.
  public static let keywords = [
    "off", "print", "sleep", "delay", "hang", "exit", "return", "segv", "bus", "fpe", "abort",
    "trap", "fatal", "unwrap", "overflow", "oob", "stackoverflow", "smash", "kill",
    "thread", "oom",
  ]

  /// The action in spec syntax, e.g. `sleep(10)` or `thread(segv)`.
  public var spec: String {
    switch self {
    case .off: "off"
    case .print(let message): "print(\(message))"
    case .sleep(let ms): "sleep(\(ms))"
    case .delay(let ms): "delay(\(ms))"
    case .hang: "hang"
    case .exit(let code): "exit(\(code))"
    case .returnError(let errno): "return(\(ErrnoNames.name(of: errno)))"
    case .segv: "segv"
    case .bus: "bus"
    case .fpe: "fpe"
    case .abort: "abort"
    case .trap: "trap"
    case .fatal: "fatal"
    case .unwrap: "unwrap"
    case .overflow: "overflow"
    case .outOfBounds: "oob"
    case .stackOverflow: "stackoverflow"
    case .smashedStack: "smash"
    case .kill: "kill"
    case .oom(let megabytes): megabytes == FailpointAction.defaultOOMMegabytes ? "oom" : "oom(\(megabytes))"
    case .thread(let inner): "thread(\(inner.spec))"
    }
  }

  /// How much `oom` allocates at most when the spec gives no bound, in MiB.
  public static let defaultOOMMegabytes = 1024

  /// Whether the action ends the process (directly or on its thread).
  public var isFatal: Bool {
    switch self {
    case .off, .print, .sleep, .delay, .returnError: false
    case .thread(let inner): inner.isFatal
    default: true
    }
  }
}
