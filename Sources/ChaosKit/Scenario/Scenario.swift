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
  /// `services:`: real programs run for the whole scenario (ServiceSpec.swift).
  package var services: [ServiceSpec] = []
  /// A real systemd runs the target as a unit, each start a launch (`systemd:`); nil: none.
  package var systemd: SystemdSpec? = nil
  /// The launches, in order.
  package var launches: [LaunchSpec]
  /// Privileges the target needs that the other keys do not show (`requires:`): a run
  /// without one skips the scenario.
  package var requires: [Requirement] = []

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
  /// The user this launch's process runs as (`user:`); nil: the harness's own.
  package var user: RunAs? = nil
  /// This launch's runtime keys, over the scenario's.
  package var runtime = RuntimeSettings()
  /// What the scenario's dependency does from this launch's spawn on (`dependency:`, default up).
  package var dependency = DependencyState.up
  /// A launch's `services: { postgres: down }`; a service not named is up.
  package var services: [String: ServiceState] = [:]
  /// Under `systemd:`, how this start begins (`start:`); nil: `systemctl` for the first
  /// launch, `automatic` (systemd's `Restart=`) after it.
  package var systemdStart: SystemdStart? = nil
  /// Under `systemd:`, a `systemctl` command run during this launch (`systemctl:`).
  package var systemctl: SystemctlStep? = nil
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
  /// Run a command (argv) before the launch, with `CHAOS_STATE_DIR` in its environment, as
  /// `user` (nil: the harness's user); it must exit 0 (`line`: where the scenario gives it).
  case command([String], user: RunAs?, line: Int)
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
  /// In `events:`, `times:` — how many of the launch's events must match, exactly, wherever
  /// they fall (such an entry takes no place in the order); nil: one at least, in order.
  package var times: Int? = nil

  package var description: String {
    let text = fields.isEmpty ? name : "\(name) \(JSONValue.object(fields))"
    return times.map { "\(text) ×\($0)" } ?? text
  }
}
