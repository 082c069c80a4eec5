/// Re-decides a running scenario's launches from what happened in the ones before (`chaos
/// explore` judges a fault by whether, and when, its failpoint fired).
package struct LaunchJudge: Sendable {
  /// Before launch N: its `before:` actions as judged now; nil keeps the scenario's.
  package var setup: @Sendable (_ launch: Int) -> [SetupAction]?
  /// After launch N's processes ended, before they are checked, with each process's events:
  /// its expectations; nil keeps the scenario's.
  package var expect: @Sendable (_ launch: Int, _ events: [[TargetEvent]]) -> Expectation?

  /// A judge.
  package init(
    setup: @escaping @Sendable (_ launch: Int) -> [SetupAction]?,
    expect: @escaping @Sendable (_ launch: Int, _ events: [[TargetEvent]]) -> Expectation?
  ) {
    self.setup = setup
    self.expect = expect
  }
}
