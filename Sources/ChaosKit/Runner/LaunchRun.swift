import Foundation

/// One launch of a scenario as `run` hands it to `runLaunch`: which launch and repeat of which
/// scenario, where it runs, and what the launches before it left.
struct LaunchRun {
  var scenario: Scenario
  var spec: LaunchSpec
  var number: Int
  var iteration: Int
  var target: String
  var workDirectory: String
  var stateDirectory: String
  /// The pids the harness stopped as daemons in the launch before, with its number; this
  /// launch must not count them.
  var stoppedEarlier: [pid_t: Int]
  /// A kubelet restart that this launch is: its number, its back-off and the process before it.
  var restart: (number: Int, delay: Double, previous: ProcessResult)?
  var dependency: DependencyServer?
  var judge: LaunchJudge?

  /// The launch's folder name: `launch-N`, with `-rI` for a repeat.
  var label: String {
    var label = "launch-\(number)"
    if spec.repeatCount > 1 { label += "-r\(iteration)" }
    return label
  }
}

/// What a launch's processes leave as they start, run and end: who started, what watches each
/// of them, and how each ended, until they are judged.
struct LaunchProcesses {
  var started: [(pid: pid_t, directory: String, process: Int, spawned: UInt64)] = []
  var supervisors: [SupervisorSession] = []
  var sessions: [pid_t: RequestSession] = [:]
  var requestResults: [pid_t: [RequestResult]] = [:]
  var daemonStops: [pid_t: DaemonStop] = [:]
  var kubelets: [pid_t: KubeletSession] = [:]
  var containers: [pid_t: RuntimeContainer] = [:]
  /// The processes that could not be started, already judged.
  var results: [ProcessResult] = []
  var ends: [pid_t: (ProcessEnd, UInt64)] = [:]
  var signalledAt: [pid_t: UInt64] = [:]
  var endings: [pid_t: RuntimeContainer.Ending] = [:]
}
