/// What a failpoint does when it fires: a ``Code-swift.struct`` and the argument it takes.
///
/// The real faults produce the genuine signal through the genuine mechanism
/// (a null write, an integer divide, a Swift trap...), never through `raise`.
///
/// A struct, not an enum, so that a later version can add an action without breaking a
/// caller's `switch`: switch over ``code-swift.property`` and keep a `default`. The former
/// cases are static members of the same names (`.segv`, `.sleep(milliseconds: 10)`), so
/// constructions and `case .segv:` still compile.
public struct FailpointAction: Sendable, Hashable, CustomStringConvertible {
  /// Which action it is. New codes may be added in any release.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    /// The keyword in spec syntax (`sleep`, `oob`, `return`…).
    public let name: String

    /// Every code of this version, in the order the parser's error message lists them, for the
    /// library's own `switch`es: the only initializer takes one, so a new code fails to compile
    /// until each `switch` over ``known`` handles it, and ``all`` has it.
    package enum Known: String, CaseIterable, Sendable {
      case off, print, sleep, delay, hang, exit
      case returnError = "return"
      case segv, bus, fpe, abort, trap, fatal, unwrap, overflow
      case outOfBounds = "oob"
      case stackOverflow = "stackoverflow"
      case smashedStack = "smash"
      case kill, thread, oom
    }

    private init(_ known: Known) { self.name = known.rawValue }

    /// This code as the enum the library switches over; every code is one (see ``Known``).
    package var known: Known { Known(rawValue: name)! }

    /// `off`: does nothing; a chain ending in `off` disables the point.
    public static let off = Code(.off)
    /// `print(msg)`: writes ``FailpointAction/message`` to standard error and continues.
    public static let print = Code(.print)
    /// `sleep(ms)`: sleeps for ``FailpointAction/milliseconds``, then continues.
    public static let sleep = Code(.sleep)
    /// `delay(ms)`: spins the CPU for ``FailpointAction/milliseconds``, then continues.
    public static let delay = Code(.delay)
    /// `hang`: blocks the calling thread forever.
    public static let hang = Code(.hang)
    /// `exit(code)`: calls `exit` with ``FailpointAction/exitCode``.
    public static let exit = Code(.exit)
    /// `return(errno)`: makes an I/O failpoint fail with ``FailpointAction/errno``.
    public static let returnError = Code(.returnError)
    /// `segv`: writes through a null pointer.
    public static let segv = Code(.segv)
    /// `bus`: touches a file mapping past its end.
    public static let bus = Code(.bus)
    /// `fpe`: integer division by zero in C.
    public static let fpe = Code(.fpe)
    /// `abort`: calls `abort()`.
    public static let abort = Code(.abort)
    /// `trap`: executes a breakpoint instruction.
    public static let trap = Code(.trap)
    /// `fatal`: Swift `fatalError`.
    public static let fatal = Code(.fatal)
    /// `unwrap`: force-unwraps a nil optional.
    public static let unwrap = Code(.unwrap)
    /// `overflow`: overflows an `Int` addition.
    public static let overflow = Code(.overflow)
    /// `oob`: indexes an array out of range.
    public static let outOfBounds = Code(.outOfBounds)
    /// `stackoverflow`: recurses until the stack is exhausted.
    public static let stackOverflow = Code(.stackOverflow)
    /// `smash`: overwrites its own return address, then writes through a null pointer.
    public static let smashedStack = Code(.smashedStack)
    /// `kill`: sends SIGKILL to its own process.
    public static let kill = Code(.kill)
    /// `thread(action)`: runs ``FailpointAction/inner`` on a fresh background thread.
    public static let thread = Code(.thread)
    /// `oom(MiB)`: allocates and touches memory until the OOM killer ends the process.
    public static let oom = Code(.oom)

    /// Every code, in the order the parser's error message lists their keywords.
    public static let all: [Code] = Known.allCases.map(Code.init)

    /// The keyword.
    public var description: String { name }
  }

  /// Which action it is.
  public let code: Code
  /// The message of ``Code-swift.struct/print``.
  public let message: String?
  /// The time of ``Code-swift.struct/sleep`` and ``Code-swift.struct/delay``, in milliseconds.
  public let milliseconds: Int?
  /// The status of ``Code-swift.struct/exit``.
  public let exitCode: Int32?
  /// The errno of ``Code-swift.struct/returnError``.
  public let errno: Int32?
  /// The most ``Code-swift.struct/oom`` allocates, in MiB.
  public let megabytes: Int?
  /// The action of ``Code-swift.struct/thread``, held in an array because a struct cannot
  /// hold itself.
  private let innerActions: [FailpointAction]

  private init(
    _ code: Code, message: String? = nil, milliseconds: Int? = nil, exitCode: Int32? = nil, errno: Int32? = nil,
    megabytes: Int? = nil, inner: FailpointAction? = nil
  ) {
    self.code = code
    self.message = message
    self.milliseconds = milliseconds
    self.exitCode = exitCode
    self.errno = errno
    self.megabytes = megabytes
    self.innerActions = inner.map { [$0] } ?? []
  }

  /// The action ``Code-swift.struct/thread`` runs on its thread; nil for the others.
  public var inner: FailpointAction? { innerActions.first }

  /// Does nothing; a chain ending in `off` disables the point.
  public static let off = FailpointAction(.off)
  /// Writes the message to standard error and continues.
  public static func print(_ message: String) -> FailpointAction { FailpointAction(.print, message: message) }
  /// Sleeps for the given milliseconds, then continues.
  public static func sleep(milliseconds: Int) -> FailpointAction {
    FailpointAction(.sleep, milliseconds: milliseconds)
  }
  /// Spins the CPU for the given milliseconds, then continues.
  public static func delay(milliseconds: Int) -> FailpointAction {
    FailpointAction(.delay, milliseconds: milliseconds)
  }
  /// Blocks the calling thread forever.
  public static let hang = FailpointAction(.hang)
  /// Calls `exit` with the given status.
  public static func exit(code: Int32) -> FailpointAction { FailpointAction(.exit, exitCode: code) }
  /// Makes an I/O failpoint fail with this errno; a no-op elsewhere.
  public static func returnError(errno: Int32) -> FailpointAction { FailpointAction(.returnError, errno: errno) }
  /// Writes through a null pointer: SIGSEGV.
  public static let segv = FailpointAction(.segv)
  /// Touches a file mapping past its end: SIGBUS.
  public static let bus = FailpointAction(.bus)
  /// Integer division by zero in C: SIGFPE.
  public static let fpe = FailpointAction(.fpe)
  /// Calls `abort()`: SIGABRT.
  public static let abort = FailpointAction(.abort)
  /// Executes a breakpoint instruction: SIGTRAP.
  public static let trap = FailpointAction(.trap)
  /// Swift `fatalError`: SIGILL on x86_64.
  public static let fatal = FailpointAction(.fatal)
  /// Force-unwraps a nil optional: SIGILL on x86_64.
  public static let unwrap = FailpointAction(.unwrap)
  /// Overflows an `Int` addition: SIGILL on x86_64.
  public static let overflow = FailpointAction(.overflow)
  /// Indexes an array out of range: SIGILL on x86_64.
  public static let outOfBounds = FailpointAction(.outOfBounds)
  /// Recurses until the stack is exhausted: SIGSEGV.
  public static let stackOverflow = FailpointAction(.stackOverflow)
  /// Overwrites its own return address and saved frame pointer with unmapped addresses, then
  /// writes through a null pointer: SIGSEGV with a stack that cannot be walked past one frame.
  public static let smashedStack = FailpointAction(.smashedStack)
  /// Sends SIGKILL to its own process.
  public static let kill = FailpointAction(.kill)
  /// Allocates memory and touches it page by page until the kernel's OOM killer ends the
  /// process (under a cgroup memory limit); past `megabytes` (default 1024) still alive, it
  /// says so on standard error and exits 1, so a missing limit never takes the whole machine.
  public static func oom(megabytes: Int) -> FailpointAction { FailpointAction(.oom, megabytes: megabytes) }
  /// Runs the inner action on a fresh background thread, and blocks the caller
  /// until that thread has finished (a fault on it ends the process first).
  public static func thread(_ inner: FailpointAction) -> FailpointAction { FailpointAction(.thread, inner: inner) }

  /// Every action keyword the spec grammar accepts.
  public static let keywords = Code.all.map(\.name)

  /// The action in spec syntax, e.g. `sleep(10)` or `thread(segv)`.
  public var spec: String {
    switch code.known {
    case .print: "print(\(message ?? ""))"
    case .sleep, .delay: "\(code.name)(\(milliseconds ?? 0))"
    case .exit: "exit(\(exitCode ?? 1))"
    case .returnError: "return(\(errno.map(ErrnoNames.name(of:)) ?? "EIO"))"
    case .oom:
      megabytes == nil || megabytes == FailpointAction.defaultOOMMegabytes ? "oom" : "oom(\(megabytes ?? 0))"
    case .thread: "thread(\(inner?.spec ?? "off"))"
    case .off, .hang, .segv, .bus, .fpe, .abort, .trap, .fatal, .unwrap, .overflow, .outOfBounds, .stackOverflow,
      .smashedStack, .kill:
      code.name
    }
  }

  /// The spec (``spec``).
  public var description: String { spec }

  /// How much `oom` allocates at most when the spec gives no bound, in MiB.
  public static let defaultOOMMegabytes = 1024

  /// Whether the action ends the process (directly or on its thread).
  public var isFatal: Bool {
    switch code.known {
    case .off, .print, .sleep, .delay, .returnError: false
    case .thread: inner?.isFatal ?? false
    case .hang, .exit, .segv, .bus, .fpe, .abort, .trap, .fatal, .unwrap, .overflow, .outOfBounds, .stackOverflow,
      .smashedStack, .kill, .oom:
      true
    }
  }
}
