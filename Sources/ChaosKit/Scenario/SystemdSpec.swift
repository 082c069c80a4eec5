/// `systemd:` on a scenario: a real systemd, booted as a throwaway container of this machine's
/// own image, runs the target as a unit. Each start of the unit is one launch.
package struct SystemdSpec: Sendable, Equatable {
  /// The unit's name inside the container (`mydaemon.service`: the file's name, or `chaos.service`
  /// for inline text).
  package var unitName: String
  /// The unit file's text, installed verbatim.
  package var unitText: String
  /// The scenario's own drop-in (`dropin:`), installed after the harness's; empty: none.
  package var dropin = ""
  /// Users made inside the container before the first start (`users:`), with systemd-sysusers.
  package var users: [String] = []
  /// How long the container may take to boot (`boot_timeout:`, default 60 s).
  package var bootTimeout: Double = 60
  /// The line of `systemd:`, for errors about it.
  package var line = 0

  /// The first `StateDirectory=` of the unit and the drop-in (nil: none), whose directory under
  /// `/var/lib` the state expectations read.
  package var stateDirectory: String? {
    var found: String?
    for line in (unitText + "\n" + dropin).split(separator: "\n") {
      let text = line.trimmingCharacters(in: .whitespaces)
      guard text.hasPrefix("StateDirectory=") else { continue }
      let value = text.dropFirst("StateDirectory=".count).split(separator: " ").first.map(String.init)
      found = value ?? found
    }
    return found
  }
}

/// How a launch under `systemd:` begins (`start:`).
package enum SystemdStart: String, Sendable, CaseIterable {
  /// The harness runs `systemctl start` (the first launch's default).
  case systemctl
  /// systemd's own `Restart=` starts it (the default after the first launch).
  case automatic
  /// The harness runs `systemctl restart`.
  case restart
  /// The harness stops the container, boots it again (a reboot: a new boot id, `/var/lib`
  /// kept) and runs `systemctl start`.
  case reboot
}

/// A `systemctl` command the harness runs during a launch (`systemctl:`), once the target
/// wrote `afterEvent`.
package struct SystemctlStep: Sendable, Equatable {
  /// What the harness asks of systemd during a launch.
  package enum Command: String, Sendable, CaseIterable {
    /// `systemctl stop`.
    case stop
    /// `systemctl kill --signal=<signal>`.
    case kill
    /// `systemctl restart`: this launch ends, the next one is its start.
    case restart
    /// Not systemctl: the harness SIGKILLs the container's PID 1, so the kernel ends every
    /// process in it at once, as a power cut does. The next launch is a `start: reboot`.
    case powerCut = "power-cut"
  }
  /// The command.
  package var command: Command
  /// The event that triggers it.
  package var afterEvent: String
  /// The signal of `kill` (default SIGTERM).
  package var signal: Int32 = 15
}

/// What systemd itself says of the unit when a launch is judged (`systemd:` in `expect`):
/// `systemctl show`'s properties. Nil fields are not checked.
package struct SystemdExpectation: Sendable, Equatable {
  /// `NRestarts`: the automatic restarts so far.
  package var nRestarts: Int?
  /// `Result`: `success`, `exit-code`, `signal`, `core-dump`, `timeout`, `watchdog`…
  package var result: String?
  /// `ActiveState`: `active`, `activating`, `inactive`, `failed`…
  package var activeState: String?
  /// `SubState`: `running`, `auto-restart`, `dead`…
  package var subState: String?
  /// `ExecMainStatus`: the exit status, or the signal number of a death by signal.
  package var execMainStatus: Int?
  /// `StatusText`: the last `STATUS=`; a trailing `*` matches a prefix.
  package var statusText: String?
  /// The mode of the unit's state directory on disk, e.g. `0700`.
  package var stateDirectoryMode: Int?
}
