import Foundation

/// One scenario's real systemd: the machine, the unit installed with the harness's drop-in,
/// and what the launches so far showed (the last main pid, the journal lines already judged).
///
/// The target's environment reaches each start through `EnvironmentFile=/out/systemd/launch.env`
/// in the harness's drop-in: systemd reads it afresh at every start, so the harness writes the
/// next launch's (its `CHAOS_EVENTS`, `CHAOS_FAILPOINTS`, `CHAOS_APP`) as soon as the current
/// start has read its own, before systemd's `Restart=` starts the next.
final class SystemdSession {
  let spec: SystemdSpec
  let machine: SystemdMachine
  /// The work directory, `/out` inside.
  let workDirectory: String
  /// The main pid of the last launch (0: none yet).
  var lastPid: pid_t = 0
  /// The monotonic time of the first launch's `launch` event (`started_at` counts from it).
  var firstStart: UInt64?
  /// How many of the unit's journal lines earlier launches were given.
  var journalSeen = 0
  /// The launch whose environment `launch.env` holds.
  private(set) var environmentFor = 0

  /// The path inside of what is `path` on the host, under the work directory.
  func inside(_ path: String) -> String { "/out" + path.dropFirst(workDirectory.count) }

  /// The state directory on the host: `/var/lib/<StateDirectory=>` kept in `var-lib/`, or the
  /// harness's own when the unit has none.
  func stateDirectory(default fallback: String) -> String {
    spec.stateDirectory.map { machine.varLib + "/" + $0 } ?? fallback
  }

  init(spec: SystemdSpec, workDirectory: String, target: String, harnessID: String) {
    self.spec = spec
    self.workDirectory = workDirectory
    let runtime = Self.swiftRuntimeDirectory
    machine = SystemdMachine(
      id: harnessID, folder: workDirectory + "/systemd",
      binds: ["--bind=\(workDirectory):/out", "--bind-ro=\(target):/opt/app/\(Self.targetName(target))"]
        + (runtime.map { ["--bind-ro=\($0)"] } ?? []),
      bootTimeout: spec.bootTimeout)
  }

  static func targetName(_ target: String) -> String { URL(fileURLWithPath: target).lastPathComponent }

  /// Installs the unit, its drop-ins and users, and boots the machine.
  func start(target: String) throws(SystemdMachine.Failure) {
    let units = machine.unitsDirectory
    try? FileTree.makeDirectories(units + "/\(spec.unitName).d")
    // The work directory must be reachable by the service's user, whoever it is.
    chmod(workDirectory, 0o755)
    try? FileTree.makeDirectories(workDirectory + "/systemd")
    chmod(workDirectory + "/systemd", 0o755)
    let harnessDropin = """
      # Written by the LaunchChaos harness: the reference app instead of the unit's ExecStart,
      # the protocol's environment for each start, and /out writable under any sandboxing.
      [Service]
      ExecStart=
      ExecStart=/opt/app/\(Self.targetName(target))
      EnvironmentFile=/out/systemd/launch.env
      ReadWritePaths=/out
      # How each start's main process ended, by invocation: a restart replaces it too fast to be seen.
      ExecStopPost=+/bin/sh -c 'echo "$${INVOCATION_ID} $${EXIT_CODE} $${EXIT_STATUS}" >> /out/systemd/exits.txt'

      """
    write(units + "/\(spec.unitName)", spec.unitText)
    write(units + "/\(spec.unitName).d/50-chaos-harness.conf", harnessDropin)
    if !spec.dropin.isEmpty { write(units + "/\(spec.unitName).d/60-scenario.conf", spec.dropin) }
    try machine.boot()
    for user in spec.users {
      let made = machine.run(["systemd-sysusers", "--inline", "u \(user) - \"\(user)\" /var/empty"])
      guard made.status == 0 else {
        throw SystemdMachine.Failure(description: "systemd-sysusers could not make user \(user): \(made.said)")
      }
    }
    // What was written while the machine was down (a reboot) or before it: read again.
    _ = systemctl(["daemon-reload"])
  }

  /// Writes `launch.env` for launch `number`, unless it already holds it.
  func writeEnvironment(_ environment: [String: String], for number: Int) {
    guard environmentFor != number else { return }
    let text = environment.sorted { $0.key < $1.key }.map { key, value in
      let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
      return "\(key)=\"\(escaped)\""
    }.joined(separator: "\n")
    // Renamed into place: systemd never reads half a file.
    let path = workDirectory + "/systemd/launch.env"
    write(path + ".new", text + "\n")
    rename(path + ".new", path)
    environmentFor = number
  }

  /// Makes launch `number`'s folder and its empty events file, writable by the service's user
  /// whoever that is, unless they exist (a start may already write there); returns the folder.
  func prepareLaunch(_ number: Int) -> String {
    let directory = workDirectory + "/launch-\(number)"
    guard access(directory + "/events.ndjson", F_OK) != 0 else { return directory }
    try? FileTree.makeDirectories(directory)
    chmod(directory, 0o755)
    _ = FileManager.default.createFile(atPath: directory + "/events.ndjson", contents: nil)
    chmod(directory + "/events.ndjson", 0o666)
    return directory
  }

  /// How the main process of start `invocation` ended, as systemd told its `ExecStopPost=`
  /// (`EXIT_CODE` exited, killed or dumped; `EXIT_STATUS` a code or a signal's name); nil: not yet.
  func recordedEnd(of invocation: String) -> ProcessEnd? {
    guard !invocation.isEmpty, let data = FileManager.default.contents(atPath: workDirectory + "/systemd/exits.txt")
    else { return nil }
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
      let fields = line.split(separator: " ").map(String.init)
      guard fields.count == 3, fields[0] == invocation else { continue }
      if fields[1] == "exited", let code = Int32(fields[2]) { return .exited(code) }
      if let signal = Signals.number(fields[2]) { return .signaled(signal) }
    }
    return nil
  }

  /// `systemctl <arguments>` inside.
  func systemctl(_ arguments: [String]) -> MachineCommand.Output { machine.run(["systemctl"] + arguments) }

  /// The unit's properties now.
  func view() -> SystemdUnitView {
    let shown = systemctl(["show", "-p", SystemdUnitView.properties.joined(separator: ","), spec.unitName])
    return SystemdUnitView(text: shown.stdout)
  }

  /// The unit's journal lines not given to an earlier launch (all of them are kept in `journal.txt`).
  func newJournalLines(into folder: String) -> [String] {
    let output = machine.run(["journalctl", "--no-pager", "-o", "short-monotonic", "-u", spec.unitName])
    let lines = output.stdout.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("-- ") }
    let fresh = Array(lines.dropFirst(journalSeen))
    journalSeen = lines.count
    write(folder + "/journal.txt", fresh.joined(separator: "\n") + "\n")
    return fresh
  }

  /// Stops the machine and boots it again, as a reboot: `/var/lib` is kept, the boot id is new.
  func reboot(target: String) throws(SystemdMachine.Failure) {
    machine.stop()
    // A new PID namespace counts from 1 again: the new main pid may well be the last one's.
    lastPid = 0
    journalSeen = 0
    try start(target: target)
  }

  /// The directory of the Swift runtime this harness runs on (`libswiftCore.so`'s), which a
  /// dynamically linked target needs inside; nil when the runtime is linked in statically.
  static let swiftRuntimeDirectory: String? = {
    guard let maps = SystemdMachines.readProcFile("/proc/self/maps") else { return nil }
    for line in String(decoding: maps, as: UTF8.self).split(separator: "\n") {
      guard let slash = line.firstIndex(of: "/"), line.hasSuffix("/libswiftCore.so") else { continue }
      let path = String(line[slash...])
      // /usr comes from the host already.
      return path.hasPrefix("/usr/") ? nil : URL(fileURLWithPath: path).deletingLastPathComponent().path
    }
    return nil
  }()

  private func write(_ path: String, _ text: String) {
    _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o644])
  }
}
