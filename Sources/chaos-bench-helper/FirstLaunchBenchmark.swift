import Foundation
import LaunchProtection

/// `chaos-bench-helper --bench-first-launch DIR [finish]`: the cost a real process pays once —
/// its one `finishLaunching` (after a crashed launch: a dead sentinel is left in DIR by the
/// previous run, which exits 1 unfinished) and `launchingFinished`, with the default configuration (SIGTERM handler and
/// its watcher thread included), first in a fresh process. Prints one JSON object; `chaos
/// bench` runs many fresh processes, and counts `measured`'s instructions under callgrind.
enum FirstLaunchBenchmark {
  static func run(arguments: [String]) {
    guard let directory = arguments.first else {
      FileHandle.standardError.write(Data("usage: --bench-first-launch STATE_DIR [finish]\n".utf8))
      exit(2)
    }
    let organizer = LaunchOrganizer(stateDirectory: directory)
    let finish = arguments.dropFirst().first == "finish"
    let (launched, finished) = measured(organizer, finish: finish)
    let result: [String: Any] = [
      "finish_launching_ns": launched, "launching_finished_ns": finished,
      "count": organizer.status.decision?.count ?? -1,
    ]
    let data = try! JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
    // An unfinished run must end as a launch crash does: `exit(0)` is a clean exit, which the
    // organizer records as not counted (so the next run saw count 0 and the bench stopped).
    if !finish {
      fflush(nil)  // every output stream: `print` buffers stdout
      exit(1)
    }
  }

  /// What is timed (and what callgrind counts, by this function's name): nanoseconds of
  /// `finishLaunching` and of `launchingFinished` (0 unless `finish`).
  @inline(never)
  static func measured(_ organizer: LaunchOrganizer, finish: Bool) -> (UInt64, UInt64) {
    let start = DispatchTime.now().uptimeNanoseconds
    organizer.finishLaunching(policy: .custom { _ in false }, launch: {}, protect: { _ in })
    let launched = DispatchTime.now().uptimeNanoseconds
    if finish { organizer.launchingFinished() }
    let finished = DispatchTime.now().uptimeNanoseconds
    return (launched - start, finished - launched)
  }
}
