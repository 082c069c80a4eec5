import CComparisonHandlers
import ChaosProbe
import Foundation
import LaunchProtection
import LaunchTasks

/// The program crash-to-reap measures: a protected launch of two tasks (`config` on a worker,
/// `ui` on the launching thread) whose crash handling is chosen by `CHAOS_APP`
/// `{"handler": "ours" | "none" | "glibc" | "minimal"}` (`none` + `SWIFT_BACKTRACE=enable=yes`
/// is the Swift runtime's backtracer; `minimal` records nothing and dies by the signal again).
/// Every configuration runs this same code up to the fault.
enum CrashToReapApp {
  static func run() {
    let app = ProcessInfo.processInfo.environment["CHAOS_APP"] ?? ""
    let handler = ["none", "glibc", "minimal"].first { app.contains("\"\($0)\"") } ?? "ours"
    let organizer = LaunchOrganizer(stateDirectory: ChaosProbe.stateDirectory(default: NSTemporaryDirectory()))
    let workflow = Workflow()
    workflow.addTask(ClosureTask("config", placement: .concurrent) { _ in })
    workflow.addTask(ClosureTask("ui", placement: .launchingThread) { _ in })
    var options = ChaosProbe.Options()
    options.crashCapture = handler == "ours"
    ChaosProbe.attach(workflow)
    ChaosProbe.attach(organizer, options: options)
    if handler == "glibc" { cmp_install_glibc_backtrace_handler(2) }
    if handler == "minimal" { cmp_install_minimal_handler() }
    organizer.finishLaunching(
      policy: .threshold(1_000_000_000),
      launch: {
        try? workflow.run()
        organizer.launchingFinished()
      }, protect: { _ in })
  }
}
