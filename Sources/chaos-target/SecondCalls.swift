import ChaosProbe
import LaunchProtection

/// `second_calls`: the organizer's calls made a second time, as the contract speaks of them, each
/// with an event `chaos explore`'s model judges: `protectFinished()` again once it left protect
/// mode returns false (the held launch ran once); `launchingFinished()` again changes nothing
/// (no second `launching_finished`); `performAction(key:)` again finds nothing held ("an action
/// runs at most once": its `life_action_run` events are counted).
enum SecondCalls {
  /// In the repair, right after its `protectFinished()` (which ran the held launch): again.
  static func inRepair(_ organizer: LaunchOrganizer) {
    ChaosProbe.emit(
      "second_call", ["call": "protect_finished", "when": "repair", "result": organizer.protectFinished()])
  }

  /// Once the app added (and performed) its life actions: each call again. Not when the launch
  /// is still held (a repair that never finishes, or degraded): a call there is a first call.
  static func afterLaunch(_ organizer: LaunchOrganizer, keys: [String]) {
    guard organizer.status.launchFinished else { return }
    ChaosProbe.emit(
      "second_call", ["call": "protect_finished", "when": "after_launch", "result": organizer.protectFinished()])
    organizer.launchingFinished()
    ChaosProbe.emit("second_call", ["call": "launching_finished", "when": "after_launch"])
    var distinct: [String] = []
    for key in keys where !distinct.contains(key) { distinct.append(key) }
    for key in distinct {
      ChaosProbe.emit(
        "second_call",
        ["call": "perform_action", "when": "after_launch", "key": key, "result": organizer.performAction(key: key)])
    }
  }
}
