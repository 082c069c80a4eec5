import Foundation

/// One scenario file: launches of a target, each with failpoints and expectations.
/// The YAML format is a public contract (the ChaosKit documentation, "Writing scenarios"): extend it, never rename.
public struct Scenario: Sendable {
  /// The file it came from.
  public var path: String
  /// A short name.
  public var name: String
  /// The rule the scenario proves, in one line.
  public var description: String?
  /// Per-launch watchdog; past it the process group is SIGKILLed (default 10 s).
  package var timeoutSeconds: Double
  /// `chaos-target` (the reference app next to `chaos`) or a path to any protocol-speaking program.
  public var target: String
  /// The line of `target:` (0 when the default was used), for errors about it.
  package var targetLine: Int
  /// Reference-app configuration, passed as `CHAOS_APP` (JSON).
  package var app: JSONValue?
  /// Extra environment for every launch.
  package var environment: [String: String]
  /// `SWIFT_BACKTRACE` for every launch (default `enable=no`).
  package var swiftBacktrace: String
  /// The harness plays systemd for every launch (nil: it does not).
  package var supervisor: SupervisorSpec?
  /// The target is a daemon: the harness stops each launch once it finished launching (nil: it does not).
  package var daemon: DaemonSpec? = nil
  /// Every launch runs as PID 1 of new PID and mount namespaces with its own /proc, as a
  /// container runtime starts a server image without an init (`container: true`); the state
  /// directory stays the same across launches, as a volume does.
  package var container = false
  /// The line of `container:` (0 when absent), for errors about it.
  package var containerLine = 0
  /// The harness plays the kubelet: restarts with back-off between the launches, probes
  /// during each (nil: it does not).
  package var kubelet: KubeletSpec? = nil
  /// A real OCI runtime for every launch (`runtime:`, `memory:`, `pids:`, `init:`, or those of
  /// `kubernetes:`); empty: none.
  package var runtime = RuntimeSettings()
  /// A real TCP listener the harness runs for the whole run (`dependency:`); nil: none.
  package var dependency: DependencySpec? = nil
  /// The launches, in order.
  package var launches: [LaunchSpec]

  /// The folder under `Scenarios/` (e.g. `counting`), used as the JUnit class name.
  public var group: String {
    URL(fileURLWithPath: path).deletingLastPathComponent().lastPathComponent
  }

  /// The file name without extension.
  public var identifier: String {
    URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
  }
}

/// `supervisor:`: what of systemd's `Type=notify` behaviour the harness plays.
package struct SupervisorSpec: Sendable, Equatable {
  /// Give each launch a `NOTIFY_SOCKET` and record its messages as `notify` events.
  package var notify: Bool
  /// `TimeoutStartSec`: SIGTERM when `READY=1` has not come by then (nil: no limit).
  package var startTimeout: Double?
  /// `TimeoutStopSec`: SIGKILL to the group this long after a SIGTERM or SIGABRT.
  package var stopTimeout: Double
  /// `WatchdogSec`: `WATCHDOG_USEC` is set; SIGABRT when a keep-alive is this late after `READY=1`.
  package var watchdog: Double?
}

/// `daemon:`: the target stays up after `launching_finished`, as a server does. The harness
/// stops each launch the way a service manager stops a service: SIGTERM once the launch
/// finished (and its requests are done) and `stopAfter` passed, SIGKILL to the group
/// `stopTimeout` later. A launch ended by that stop (exit 0 or the SIGTERM) is `finished`, and
/// the next launch must not count it.
package struct DaemonSpec: Sendable, Equatable {
  /// How long the daemon runs after `launching_finished` before the SIGTERM.
  package var stopAfter: Double = 0
  /// How long it has to exit after the SIGTERM before its group is SIGKILLed (systemd's `TimeoutStopSec`).
  package var stopTimeout: Double = 5

  /// The defaults: stop at once, 5 s to exit.
  package init(stopAfter: Double = 0, stopTimeout: Double = 5) {
    self.stopAfter = stopAfter
    self.stopTimeout = stopTimeout
  }
}

/// One entry of `launches:`.
package struct LaunchSpec: Sendable {
  /// Line of the entry in the file.
  package var line: Int
  /// `CHAOS_FAILPOINTS` for this launch (its grammar checked at load).
  package var failpoints: String
  /// The line of `failpoints:`, for errors about the names.
  package var failpointsLine: Int
  /// Fields merged over the scenario's `app` for this launch.
  package var app: JSONValue?
  /// Extra environment for this launch.
  package var environment: [String: String]
  /// Run this launch N times in sequence; each must meet the expectations.
  package var repeatCount: Int
  /// Run N processes of this launch at once; each must meet the expectations.
  package var parallel: Int
  /// A per-launch watchdog overriding the scenario's.
  package var timeoutSeconds: Double?
  /// What to do to the state directory before the launch.
  package var before: [SetupAction]
  /// A signal the harness sends once the target emitted an event.
  package var sendSignal: SignalDelivery?
  /// What must hold after the launch.
  package var expect: Expectation
  /// Steps run in order while the process runs, each after an event: an HTTP request or a
  /// command, with its result asserted (`requests:`). `sendSignal` waits until all are done.
  package var requests: [RequestStep] = []
  /// Runs this launch as PID 1 of its own namespaces (true) or not (false), overriding the
  /// scenario's `container`; nil: as the scenario says.
  package var container: Bool? = nil
  /// This launch's runtime keys, over the scenario's.
  package var runtime = RuntimeSettings()
  /// What the scenario's dependency does from this launch's spawn on (`dependency:`, default up).
  package var dependency = DependencyState.up
}

/// One entry of `requests:`: once the target emitted `afterEvent`, an HTTP request to it or a
/// command, whose result is asserted.
public struct RequestStep: Sendable, Equatable {
  /// What the step does.
  public enum Action: Sendable, Equatable {
    /// An HTTP/1.1 request to the target on 127.0.0.1.
    case http(HTTPStep)
    /// A command run with the launch's environment, in the scenario's folder.
    case command(CommandStep)
  }

  /// Line of the entry in the file.
  public var line: Int
  /// The event the target must have emitted first (default `launching_finished`).
  public var afterEvent: String
  /// The request or command.
  public var action: Action
  /// `optional: true`: the step is made and its result recorded, but a failed assertion does
  /// not fail the launch (a workload sent to reach code, as `chaos explore --workload` writes).
  public var optional = false

  /// Creates a step.
  public init(line: Int = 0, afterEvent: String = "launching_finished", action: Action) {
    self.line = line
    self.afterEvent = afterEvent
    self.action = action
  }

  /// `GET /health` or the command's argv, for messages.
  public var label: String {
    switch action {
    case .http(let http): "\(http.method) \(http.path)"
    case .command(let command): command.arguments.map(RequestStep.shellQuoted).joined(separator: " ")
    }
  }

  static func shellQuoted(_ word: String) -> String {
    let plain = !word.isEmpty && word.allSatisfy { $0.isLetter || $0.isNumber || "-_./=:,+@%${}".contains($0) }
    return plain ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }
}

/// `http:` of a request step.
public struct HTTPStep: Sendable, Equatable {
  /// `GET`, `POST`, …
  public var method: String
  /// The request target, starting with `/`.
  public var path: String
  /// The request body (sent with a `Content-Length`).
  public var body: String?
  /// Extra request headers.
  public var headers: [String: String]
  /// The port on 127.0.0.1; nil: the launch's `CHAOS_PORT`.
  public var port: Int?
  /// The expected status (default 200).
  public var status: Int
  /// Text the response body must contain.
  public var bodyContains: String?
  /// The exact response body expected.
  public var bodyEquals: String?
  /// Per attempt: connect, send and read the whole response (default 2 s).
  public var timeoutSeconds: Double
  /// Retry failed connections and other statuses for this long (default 0: one attempt).
  public var retryForSeconds: Double

  /// Creates a step; the defaults are the loader's.
  public init(
    method: String = "GET", path: String, body: String? = nil, headers: [String: String] = [:], port: Int? = nil,
    status: Int = 200, bodyContains: String? = nil, bodyEquals: String? = nil, timeoutSeconds: Double = 2,
    retryForSeconds: Double = 0
  ) {
    self.method = method
    self.path = path
    self.body = body
    self.headers = headers
    self.port = port
    self.status = status
    self.bodyContains = bodyContains
    self.bodyEquals = bodyEquals
    self.timeoutSeconds = timeoutSeconds
    self.retryForSeconds = retryForSeconds
  }
}

/// `command:` of a request step.
public struct CommandStep: Sendable, Equatable {
  /// argv; `${CHAOS_PORT}`, `${CHAOS_STATE_DIR}` and `${CHAOS_PID}` are replaced.
  public var arguments: [String]
  /// The expected exit status (default 0).
  public var exitCode: Int32
  /// Text its standard output or error must contain (`${CHAOS_…}` replaced as in the argv).
  public var outputContains: String?
  /// Past it the command's process group is SIGKILLed and the step fails (default 5 s).
  public var timeoutSeconds: Double

  /// Creates a step; the defaults are the loader's.
  public init(arguments: [String], exitCode: Int32 = 0, outputContains: String? = nil, timeoutSeconds: Double = 5) {
    self.arguments = arguments
    self.exitCode = exitCode
    self.outputContains = outputContains
    self.timeoutSeconds = timeoutSeconds
  }
}

/// A change the harness makes before a launch.
package enum SetupAction: Sendable, Equatable {
  /// Replace the state file with this text (corrupt, truncated, future version...).
  case writeState(String)
  /// Write a file at a path relative to the state directory (e.g. a poisoned data file).
  case writeFile(path: String, text: String)
  /// Rewrite the boot id of every unfinished launch in the state (simulates a reboot).
  case editBootID(String)
  /// Make the state directory unwritable (it is replaced by a plain file).
  case unwritableStateDirectory
  /// Give the unfinished launches in the state the pid of a live process (the harness) with
  /// their old start time: a dead launch whose pid was reused must still count.
  case reusePid
  /// Run a fresh copy of the target binary from now on (a new build: new inode and mtime).
  case newBinary
}

/// A signal sent to the launched process once an event appears.
package struct SignalDelivery: Sendable, Equatable {
  /// The signal number.
  package var signal: Int32
  /// The event name to wait for.
  package var afterEvent: String
}

/// An event an expectation looks for: its name and fields that must match.
package struct EventPattern: Sendable, Equatable, CustomStringConvertible {
  /// Event name.
  package var name: String
  /// Fields that must be equal.
  package var fields: [String: JSONValue]

  package var description: String {
    fields.isEmpty ? name : "\(name) \(JSONValue.object(fields))"
  }
}

/// How a launch ended.
public enum Outcome: String, Sendable, CaseIterable, Encodable {
  /// Reached `launching_finished` and exited 0.
  case finished
  /// Died by a catchable signal.
  case crash
  /// Died by SIGKILL that the watchdog did not send.
  case killed
  /// Exited before finishing.
  case exit
  /// The watchdog killed it.
  case timeout
  /// The kernel's OOM killer ended it in its container's memory cgroup (`runtime:` with a
  /// memory limit): exit status 137, what the kubelet reports as `OOMKilled`.
  case oomKilled = "oom_killed"
}

/// The mode a launch reports in its `launch` event (protocol field `mode`).
public enum ReportedMode: String, Sendable, CaseIterable, Encodable {
  /// The normal launch ran.
  case normal
  /// Protect mode: the repair ran first.
  case protect
}

/// The expectations of a launch. Nil fields are not checked.
package struct Expectation: Sendable {
  /// `outcome`: how the launch ends.
  package var outcome: Outcome?
  /// `signal`: the signal that ended it.
  package var signal: Int32?
  /// `exit_code`: its exit status.
  package var exitCode: Int32?
  /// `count`: the count its `launch` event reports.
  package var count: Int?
  /// `mode`: `normal` or `protect`.
  package var mode: ReportedMode?
  /// `level`: the protect level (from 1).
  package var level: Int?
  /// `relaunched`: whether the held launch ran in-process after the repair.
  package var relaunched: Bool?
  /// `events`: events that must be in the events file, in this order (a subsequence).
  package var events: [EventPattern] = []
  /// `no_events`: events that must not be there.
  package var noEvents: [EventPattern] = []
  /// `backtrace_contains`: names that must appear in the symbolized crash backtrace.
  package var backtraceContains: [String] = []
  /// `handler_latency_us`: the most the crash handler may take, in microseconds.
  package var handlerLatencyMicroseconds: Double?
  /// Notify messages that must have been received, in order (`PREFIX*` matches a prefix).
  package var notify: [String] = []
  /// `state`: the persisted state after the launch.
  package var state: StateExpectation?
  /// What the kubelet's probes concluded (`probes:`, with `kubernetes:`).
  package var probes: ProbeExpectation?
  /// The back-off the kubelet waited before starting this launch, in real seconds
  /// (`restart_delay:`, with `kubernetes:`; the scaled value).
  package var restartDelay: Double?
}

/// Expectations on the persisted state after the launch.
package struct StateExpectation: Sendable {
  /// `count`: the persisted consecutive launch-crash count.
  package var count: Int?
  /// `launches_in_progress`: how many unfinished launches the sentinel lists.
  package var launchesInProgress: Int?
  /// `attempted_level`: the protect level last attempted (0: none).
  package var attemptedLevel: Int?
  /// `last_crash_type`: the cause recorded for the last counted launch.
  package var lastCrashType: String?
  /// `last_uncounted_exit`: why the last unfinished launch was not counted.
  package var lastUncountedExit: String?
  /// `moved_aside`: whether a bad state file was moved aside.
  package var movedAside: Bool?
}
