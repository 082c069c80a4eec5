import Foundation
import LaunchProtection

/// `chaos-bench-helper --bench-first-launch DIR`: the cost a real process pays once — its one
/// `finishLaunching` (after a crashed launch: a dead sentinel is left in DIR by the previous
/// run) and `launchingFinished`, with the default configuration (SIGTERM handler and its
/// watcher thread included), first in a fresh process. Prints one JSON object; `chaos bench`
/// runs many fresh processes.
enum FirstLaunchBenchmark {
  static func run(arguments: [String]) {
    guard let directory = arguments.first else {
      FileHandle.standardError.write(Data("usage: --bench-first-launch STATE_DIR [finish]\n".utf8))
      exit(2)
    }
    let finish = arguments.dropFirst().first == "finish"
    var configuration = LaunchOrganizer.Configuration(stateDirectory: directory)
    if ProcessInfo.processInfo.environment["XNOSTOP"] != nil { configuration.ignoreTermination = false }
    let organizer = LaunchOrganizer(configuration: configuration)
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let faultsBefore = usage.ru_minflt
    let start = DispatchTime.now().uptimeNanoseconds
    organizer.finishLaunching(shouldProtect: { _ in false }, launch: {}, protect: {})
    let launched = DispatchTime.now().uptimeNanoseconds
    if finish { organizer.launchingFinished() }
    let finished = DispatchTime.now().uptimeNanoseconds
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let result: [String: Any] = [
      "finish_launching_ns": launched - start, "launching_finished_ns": finished - launched,
      "count": organizer.decision?.count ?? -1, "faults": usage.ru_minflt - faultsBefore,
    ]
    let data = try! JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
  }
}
