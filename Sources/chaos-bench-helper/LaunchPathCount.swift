import Foundation
import LaunchProtection
import Synchronization

/// `chaos-bench-helper --count-launch-path N DIR`: N processCrash launch pairs (a launch left
/// unfinished, then one that counts it and finishes), as the protection section times them,
/// and nothing else. Run under callgrind at two values of N, the difference of the two
/// instruction counts divided by the difference of N is one pair's cost, without the
/// process's start-up and exit.
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
    // One pair before counting, so the state file and directory exist as in the timed loop.
    for _ in 0..<(pairs + 1) {
      organizer().finishLaunching(policy: .threshold(Int.max), launch: {}, protect: { _ in })
      let clean = organizer()
      clean.finishLaunching(policy: .threshold(Int.max), launch: {}, protect: { _ in })
      clean.launchingFinished()
    }
  }
}
