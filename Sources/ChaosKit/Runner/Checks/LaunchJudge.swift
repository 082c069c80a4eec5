/// Re-decides a running scenario's launches from what happened in the ones before (`chaos
/// explore` judges a fault by whether, and when, its failpoint fired).
package struct LaunchJudge: Sendable {
  /// Before launch N: its `before:` actions as judged now; nil keeps the scenario's.
  package var setup: @Sendable (_ launch: Int) -> [SetupAction]?
  /// After launch N's processes ended, before they are checked, with each process's events and
  /// the monotonic time (`t`'s clock) the harness sent it `send_signal`'s signal, if it did:
  /// its expectations; nil keeps the scenario's.
  package var expect: @Sendable (_ launch: Int, _ events: [[TargetEvent]], _ signalledAt: [UInt64?]) -> Expectation?

  /// A judge.
  package init(
    setup: @escaping @Sendable (_ launch: Int) -> [SetupAction]?,
    expect: @escaping @Sendable (_ launch: Int, _ events: [[TargetEvent]], _ signalledAt: [UInt64?]) -> Expectation?
  ) {
    self.setup = setup
    self.expect = expect
  }
}
