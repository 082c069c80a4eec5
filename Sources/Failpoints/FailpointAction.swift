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
    @usableFromInline package enum Known: String, CaseIterable, Sendable {
      case off, print, sleep, delay, hang, exit
      case returnError = "return"
      case segv, bus, fpe, abort, trap, fatal, unwrap, overflow
      case outOfBounds = "oob"
      case stackOverflow = "stackoverflow"
      case smashedStack = "smash"
      case kill, thread, oom
    }

    @usableFromInline init(_ known: Known) { self.name = known.rawValue }

    /// This code as the enum the library switches over; every code is one (see ``Known``).
    package var known: Known { Known(rawValue: name)! }

    /// `off`: does nothing; a chain ending in `off` disables the point.
    @_alwaysEmitIntoClient
    public static var off: Code { Code(.off) }
    /// `print(msg)`: writes ``FailpointAction/message`` to standard error and continues.
    @_alwaysEmitIntoClient
    public static var print: Code { Code(.print) }
    /// `sleep(ms)`: sleeps for ``FailpointAction/milliseconds``, then continues.
    @_alwaysEmitIntoClient
    public static var sleep: Code { Code(.sleep) }
    /// `delay(ms)`: spins the CPU for ``FailpointAction/milliseconds``, then continues.
    @_alwaysEmitIntoClient
    public static var delay: Code { Code(.delay) }
    /// `hang`: blocks the calling thread forever.
    @_alwaysEmitIntoClient
    public static var hang: Code { Code(.hang) }
    /// `exit(code)`: calls `exit` with ``FailpointAction/exitCode``.
    @_alwaysEmitIntoClient
    public static var exit: Code { Code(.exit) }
    /// `return(errno)`: makes an I/O failpoint fail with ``FailpointAction/errno``.
    @_alwaysEmitIntoClient
    public static var returnError: Code { Code(.returnError) }
    /// `segv`: writes through a null pointer.
    @_alwaysEmitIntoClient
    public static var segv: Code { Code(.segv) }
    /// `bus`: touches a file mapping past its end.
    @_alwaysEmitIntoClient
    public static var bus: Code { Code(.bus) }
    /// `fpe`: integer division by zero in C.
    @_alwaysEmitIntoClient
    public static var fpe: Code { Code(.fpe) }
    /// `abort`: calls `abort()`.
    @_alwaysEmitIntoClient
    public static var abort: Code { Code(.abort) }
    /// `trap`: executes a breakpoint instruction.
    @_alwaysEmitIntoClient
    public static var trap: Code { Code(.trap) }
    /// `fatal`: Swift `fatalError`.
    @_alwaysEmitIntoClient
    public static var fatal: Code { Code(.fatal) }
    /// `unwrap`: force-unwraps a nil optional.
    @_alwaysEmitIntoClient
    public static var unwrap: Code { Code(.unwrap) }
    /// `overflow`: overflows an `Int` addition.
    @_alwaysEmitIntoClient
    public static var overflow: Code { Code(.overflow) }
    /// `oob`: indexes an array out of range.
    @_alwaysEmitIntoClient
    public static var outOfBounds: Code { Code(.outOfBounds) }
    /// `stackoverflow`: recurses until the stack is exhausted.
    @_alwaysEmitIntoClient
    public static var stackOverflow: Code { Code(.stackOverflow) }
    /// `smash`: overwrites its own return address, then writes through a null pointer.
    @_alwaysEmitIntoClient
    public static var smashedStack: Code { Code(.smashedStack) }
    /// `kill`: sends SIGKILL to its own process.
    @_alwaysEmitIntoClient
    public static var kill: Code { Code(.kill) }
    /// `thread(action)`: runs ``FailpointAction/inner`` on a fresh background thread.
    @_alwaysEmitIntoClient
    public static var thread: Code { Code(.thread) }
    /// `oom(MiB)`: allocates and touches memory until the OOM killer ends the process.
    @_alwaysEmitIntoClient
    public static var oom: Code { Code(.oom) }

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

  @usableFromInline init(
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
  @_alwaysEmitIntoClient
  public static var off: FailpointAction { FailpointAction(.off) }
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
  @_alwaysEmitIntoClient
  public static var hang: FailpointAction { FailpointAction(.hang) }
  /// Calls `exit` with the given status.
  public static func exit(code: Int32) -> FailpointAction { FailpointAction(.exit, exitCode: code) }
  /// Makes an I/O failpoint fail with this errno; a no-op elsewhere.
  public static func returnError(errno: Int32) -> FailpointAction { FailpointAction(.returnError, errno: errno) }
  /// Writes through a null pointer: SIGSEGV.
  @_alwaysEmitIntoClient
  public static var segv: FailpointAction { FailpointAction(.segv) }
  /// Touches a file mapping past its end: SIGBUS.
  @_alwaysEmitIntoClient
  public static var bus: FailpointAction { FailpointAction(.bus) }
  /// Integer division by zero in C: SIGFPE.
  @_alwaysEmitIntoClient
  public static var fpe: FailpointAction { FailpointAction(.fpe) }
  /// Calls `abort()`: SIGABRT.
  @_alwaysEmitIntoClient
  public static var abort: FailpointAction { FailpointAction(.abort) }
  /// Executes a breakpoint instruction: SIGTRAP.
  @_alwaysEmitIntoClient
  public static var trap: FailpointAction { FailpointAction(.trap) }
  /// Swift `fatalError`: SIGILL on x86_64.
  @_alwaysEmitIntoClient
  public static var fatal: FailpointAction { FailpointAction(.fatal) }
  /// Force-unwraps a nil optional: SIGILL on x86_64.
  @_alwaysEmitIntoClient
  public static var unwrap: FailpointAction { FailpointAction(.unwrap) }
  /// Overflows an `Int` addition: SIGILL on x86_64.
  @_alwaysEmitIntoClient
  public static var overflow: FailpointAction { FailpointAction(.overflow) }
  /// Indexes an array out of range: SIGILL on x86_64.
  @_alwaysEmitIntoClient
  public static var outOfBounds: FailpointAction { FailpointAction(.outOfBounds) }
  /// Recurses until the stack is exhausted: SIGSEGV.
  @_alwaysEmitIntoClient
  public static var stackOverflow: FailpointAction { FailpointAction(.stackOverflow) }
  /// Overwrites its own return address and saved frame pointer with unmapped addresses, then
  /// writes through a null pointer: SIGSEGV with a stack that cannot be walked past one frame.
  @_alwaysEmitIntoClient
  public static var smashedStack: FailpointAction { FailpointAction(.smashedStack) }
  /// Sends SIGKILL to its own process.
  @_alwaysEmitIntoClient
  public static var kill: FailpointAction { FailpointAction(.kill) }
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
