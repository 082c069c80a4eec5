import CFailpointFaults

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Values the optimiser cannot see through: public and mutable, so no build
/// (release or whole-module) can constant-fold a fault away.
public enum FaultOperands {
  /// Always nil at run time; force-unwrapped by `unwrap`.
  nonisolated(unsafe) public static var missing: Int? = nil
  /// Always `Int.max`; incremented by `overflow`.
  nonisolated(unsafe) public static var largest = Int.max
  /// Always 3; indexed one past its end by `oob`.
  nonisolated(unsafe) public static var smallArray = [1, 2, 3]
  /// A sink that keeps stack frames alive in `stackoverflow`.
  nonisolated(unsafe) public static var sink: UnsafeMutableRawPointer?
}

/// Executes actions. Faults never return.
enum FaultInjection {
  static func perform(_ action: FailpointAction, name: String) {
    switch action.code.known {
    case .print:
      let line = "failpoint \(name): \(action.message ?? "")\n"
      _ = line.withCString { write(2, $0, strlen($0)) }
    case .sleep: sleepMilliseconds(action.milliseconds ?? 0)
    case .delay:
      let end = MonotonicClock.nanoseconds() + UInt64(action.milliseconds ?? 0) * 1_000_000
      while MonotonicClock.nanoseconds() < end {}
    case .hang:
      while true { sleepMilliseconds(1_000) }
    case .exit: exit(action.exitCode ?? 1)
    case .segv: cf_fault_null_write()
    case .bus: cf_fault_bus()
    case .fpe: cf_fault_integer_divide()
    case .abort: abort()
    case .trap: cf_fault_breakpoint()
    case .fatal: failpointFatalError(name)
    case .unwrap: failpointUnwrap()
    case .overflow: failpointOverflow()
    case .outOfBounds: failpointOutOfBounds()
    case .stackOverflow: _ = failpointStackOverflow(0)
    case .smashedStack: cf_fault_smashed_stack()
    case .kill: _ = kill(getpid(), SIGKILL)
    case .oom: failpointOutOfMemory(megabytes: action.megabytes ?? FailpointAction.defaultOOMMegabytes)
    case .off, .returnError, .thread: return  // return is the registry's result; thread, the registry runs it
    }
  }

  static func sleepMilliseconds(_ ms: Int) {
    var request = timespec(tv_sec: ms / 1000, tv_nsec: (ms % 1000) * 1_000_000)
    var remaining = timespec()
    while nanosleep(&request, &remaining) == -1, errno == EINTR { request = remaining }
  }
}

// Each fault lives in its own never-inlined function so the backtrace names it.

@inline(never)
func failpointFatalError(_ name: String) {
  fatalError("failpoint \(name) fired: fatal")
}

@inline(never)
func failpointUnwrap() {
  FaultOperands.sink = UnsafeMutableRawPointer(bitPattern: FaultOperands.missing!)
}

@inline(never)
func failpointOverflow() {
  FaultOperands.largest = FaultOperands.largest + FaultOperands.smallArray.count
}

@inline(never)
func failpointOutOfBounds() {
  let array = FaultOperands.smallArray
  FaultOperands.largest = array[array.count]
}

/// Recurses with a 512-byte frame that escapes to a global, so it is neither
/// turned into a loop nor shrunk: the stack really runs out.
@inline(never)
func failpointStackOverflow(_ depth: Int) -> Int {
  var frame: (Int, Int, Int, Int, Int, Int, Int, Int) = (depth, depth, depth, depth, depth, depth, depth, depth)
  var frames = (frame, frame, frame, frame, frame, frame, frame, frame)
  withUnsafeMutableBytes(of: &frames) { FaultOperands.sink = $0.baseAddress }
  frame.0 = failpointStackOverflow(depth &+ 1)
  return frame.0 &+ frames.7.7
}

/// Allocates 1 MiB blocks and writes one byte in each page, so every page is really charged
/// to the memory cgroup (untouched pages of an allocation cost nothing), until the OOM killer
/// ends the process; never frees. Past `megabytes`, reports that no limit stopped it and exits 1.
@inline(never)
func failpointOutOfMemory(megabytes: Int) {
  let block = 1 << 20
  let page = Int(sysconf(Int32(_SC_PAGESIZE)))
  for _ in 0..<megabytes {
    guard let memory = malloc(block) else { continue }
    var offset = 0
    while offset < block {
      memory.storeBytes(of: 1, toByteOffset: offset, as: UInt8.self)
      offset += page
    }
    FaultOperands.sink = memory
  }
  let message = "failpoint oom: allocated \(megabytes) MiB and was not killed (no memory limit?)\n"
  _ = message.withCString { write(2, $0, strlen($0)) }
  exit(1)
}
