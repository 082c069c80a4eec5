import Foundation
import LaunchProtection
import Synchronization

/// `chaos-bench-helper --count-launch-path PAIRS DIR`: the protection section's processCrash
/// launch pair — `finishLaunching` after a launch that crashed, then `launchingFinished` — PAIRS
/// times, for callgrind to count in `measuredPair` alone (process start-up, the launch left
/// unfinished before each pair and the organizers' set-up are not counted).
enum LaunchPathCount {
  static func run(arguments: [String]) {
    guard arguments.count == 2, let pairs = Int(arguments[0]), pairs >= 0 else {
      FileHandle.standardError.write(Data("usage: --count-launch-path PAIRS STATE_DIR\n".utf8))
      exit(2)
    }
    let directory = arguments[1]
    let pid = Mutex<Int32>(1_000_000)
    func organizer() -> LaunchOrganizer {
      let identity = pid.withLock { value in
        value += 1
        return ProcessIdentity(pid: value, startTime: UInt64(value), bootID: "bench")
      }
      var configuration = LaunchOrganizer.Configuration(stateDirectory: directory)
      configuration.ignoreTermination = false
      configuration.environment = LaunchEnvironment(
        current: { identity }, isAlive: { _ in false }, executableID: { "bench" })
      return LaunchOrganizer(configuration: configuration)
    }
    // One uncounted pair first: the state file and its directory exist, as in the timed loop.
    for round in 0...pairs {
      organizer().finishLaunching(policy: .threshold(Int.max), launch: {}, protect: { _ in })
      let clean = organizer()
      if round == 0 {
        clean.finishLaunching(policy: .threshold(Int.max), launch: {}, protect: { _ in })
        clean.launchingFinished()
      } else {
        measuredPair(clean)
      }
    }
  }

  /// One pair; callgrind counts this function's instructions (`--toggle-collect`).
  @inline(never)
  static func measuredPair(_ organizer: LaunchOrganizer) {
    organizer.finishLaunching(policy: .threshold(Int.max), launch: {}, protect: { _ in })
    organizer.launchingFinished()
  }
}
