import CFuzzDriver
import Failpoints
import Foundation
import LaunchProtection
import Synchronization

// Whatever bytes are in `launch-state.json`, `finishLaunching` must return and run either the
// launch or the repair, exactly one of them, and the launch must then finish. (Reproduce a
// finding by hand with the bytes after the placeholders below are replaced.)

/// Which closures ran for one input.
private final class Ran: Sendable {
  let launch = Atomic<Int>(0)
  let protect = Atomic<Int>(0)
}

/// One scratch directory for this process (removed at exit); each input gets a fresh `state` in it.
private let scratch: String = {
  let base = ProcessInfo.processInfo.environment["FUZZ_SCRATCH"] ?? NSTemporaryDirectory()
  let path = (base as NSString).appendingPathComponent("fuzz-state-file-\(getpid())")
  try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  atexit { try? FileManager.default.removeItem(atPath: scratch) }
  return path
}()

/// The registry the organizer evaluates: empty, so no failpoint ever fires.
private let noFailpoints = FailpointRegistry()

/// `@BOOT@` and `@EXE@` in an input stand for this machine's boot id and this binary's
/// executable id: seeds (committed from another machine) can then describe launches that died
/// in this boot, and an unchanged binary, so counting and escalation are reachable.
private let placeholders: [(token: [UInt8], value: [UInt8])] = [
  (Array("@BOOT@".utf8), Array(LaunchEnvironment.system.current().bootID.utf8)),
  (Array("@EXE@".utf8), Array((LaunchEnvironment.system.executableID() ?? "").utf8)),
]

private func substitutingPlaceholders(_ bytes: [UInt8]) -> [UInt8] {
  var result = bytes
  for (token, value) in placeholders {
    var output: [UInt8] = []
    var index = 0
    while index < result.count {
      if result[index] == token[0], result[index...].starts(with: token) {
        output += value
        index += token.count
      } else {
        output.append(result[index])
        index += 1
      }
    }
    result = output
  }
  return result
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let directory = scratch + "/state"
  try? FileManager.default.removeItem(atPath: directory)
  try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  let bytes = Data(substitutingPlaceholders(Array(UnsafeBufferPointer(start: data, count: size))))
  guard FileManager.default.createFile(atPath: directory + "/launch-state.json", contents: bytes) else {
    fatalError("cannot write the state file in \(directory)")
  }

  var configuration = LaunchOrganizer.Configuration(stateDirectory: directory)
  configuration.ignoreTermination = false  // no SIGTERM handler per input
  configuration.notifyReady = false
  configuration.failpoints = noFailpoints
  let organizer = LaunchOrganizer(configuration: configuration)
  let ran = Ran()
  organizer.finishLaunching(
    policy: .custom { $0 >= 2 },
    launch: { ran.launch.add(1, ordering: .relaxed) },
    protect: { _ in ran.protect.add(1, ordering: .relaxed) })
  let launched = ran.launch.load(ordering: .relaxed)
  let protected = ran.protect.load(ordering: .relaxed)
  precondition(
    launched + protected == 1, "finishLaunching ran launch \(launched) and protect \(protected) times (want one)")
  if protected == 1 {
    precondition(organizer.protectFinished(), "protect mode without a held launch")
    precondition(ran.launch.load(ordering: .relaxed) == 1, "protectFinished did not run the held launch")
  }
  organizer.launchingFinished()
  // What the launch left must read back (or be reported as a problem), never trap.
  _ = try? StateStore(directory: directory).read()
  return 0
}

/// The entry point SwiftPM links as `main` (see CFuzzDriver): libFuzzer's driver on `fuzz`.
@_cdecl("fuzz_state_file_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
  var argc = argc
  var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
  return LLVMFuzzerRunDriver(&argc, &argv) { data, size in data.map { fuzz($0, size) } ?? 0 }
}
