import Failpoints
import Foundation

extension MonotonicClock {
  /// Sleeps one step toward `deadline` (`nanoseconds()` time): at most `step` µs, and no
  /// further than the deadline. False, without sleeping, once the deadline has passed. A loop
  /// of these steps stays responsive to whatever its caller checks between them (a stop,
  /// Ctrl-C). One reading of the clock: a second, later one could be past the deadline, and
  /// the subtraction would trap (the kubelet's probe loop did, under `CI/suite-repeat --load`).
  static func sleepStep(until deadline: UInt64, atMost step: UInt32) -> Bool {
    let now = nanoseconds()
    guard now < deadline else { return false }
    usleep(UInt32(min(UInt64(step), (deadline - now) / 1000 + 1)))
    return true
  }
}
