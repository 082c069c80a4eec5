/// Re-decides a launch's expectations from what happened in it, called once per launch after
/// its processes ended and before they are checked, with each process's events; nil keeps the
/// scenario's. `chaos explore` judges a fault by whether, and when, its failpoint fired.
package typealias LaunchJudge = @Sendable (_ launch: Int, _ events: [[TargetEvent]]) -> Expectation?
