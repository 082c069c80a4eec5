import Failpoints

@testable import LaunchProtection

/// Random states for the codec's differential tests: every field, odd strings, extreme times.
extension StateJSONTests {
  static func randomState(_ generator: inout SeededGenerator) -> LaunchState {
    func maybe<T>(_ make: () -> T) -> T? { generator.next() % 3 == 0 ? nil : make() }
    func text(_ limit: Int) -> String {
      let pool: [Unicode.Scalar] = [
        "a", "Z", "0", "/", "\\", "\"", "\u{0}", "\u{1F}", "\n", "\t", "\u{7F}", "é", "\u{2028}", "🚀", " ", "{",
      ]
      let count = Int(generator.next() % UInt64(limit + 1))
      return String(String.UnicodeScalarView((0..<count).map { _ in pool[Int(generator.next() % UInt64(pool.count))] }))
    }
    func time() -> Double {
      switch generator.next() % 5 {
      case 0: return Double(generator.next() % 2_000_000_000)
      case 1: return Double(generator.next() % 1_000_000) / 1e12
      case 2: return Double(bitPattern: generator.next() >> 12 | 0x41D0_0000_0000_0000)  // 1e9...
      default: return Double(generator.next() % 253_402_300_800_000) / 1000
      }
    }
    var state = LaunchState()
    state.consecutiveCrashes = Int(generator.next() % 1_000_001)
    state.attemptedProtectLevel = maybe { Int(generator.next() % 10_000) + 1 }
    state.executableID = maybe { text(40) }
    state.launchesInProgress = (0..<Int(generator.next() % 4)).map { _ in
      var record = LaunchRecord(
        process: ProcessIdentity(
          pid: Int32(truncatingIfNeeded: generator.next()), startTime: generator.next() >> (generator.next() % 64),
          bootID: text(36), machine: maybe { text(10) }),
        launchID: text(36), phase: [.launching, .protecting, .relaunching][Int(generator.next() % 3)],
        startedSeconds: time())
      record.stopRequestedSeconds = maybe { time() }
      record.waitingFor = maybe { text(12) }
      return record
    }
    state.lastCrashCause = maybe {
      CrashCause(
        type: text(10), detail: maybe { text(200) }, pid: maybe { Int32(truncatingIfNeeded: generator.next()) },
        afterLaunch: generator.next() % 2 == 0, recordedSeconds: time())
    }
    state.lastUncountedExit = maybe {
      UncountedExit(
        reason: [.cleanExit, .terminated, .reboot][Int(generator.next() % 3)],
        pid: Int32(truncatingIfNeeded: generator.next()), decidedSeconds: time())
    }
    state.lastDependencyOutage = maybe {
      DependencyOutage(
        dependency: text(12), launchesInARow: Int(generator.next() % 1_000_000) + 1,
        pid: Int32(truncatingIfNeeded: generator.next()), decidedSeconds: time(),
        firstDecidedSeconds: generator.next() % 2 == 0 ? time() : nil)
    }
    return state
  }
}
