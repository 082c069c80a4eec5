import Foundation

/// Whether another user (a scenario's `user:`) can reach a path: search permission on every
/// directory above it, by the owner, group and other bits as the kernel applies them to a
/// process with that uid and gid and no supplementary groups (what the harness gives it). A
/// checkout under a 0700 home (/root) cannot be entered by `nobody`: the scenario then could
/// not run, and says which directory stops which user, instead of "Permission denied".
enum UserReach {
  /// Why `user` cannot reach `path` (nil: it can, or the path does not exist yet); with
  /// `execute`, the file itself must be executable by that user too.
  static func problem(_ user: RunAs, path: String, execute: Bool = false) -> String? {
    guard user.uid != 0 else { return nil }
    let components = URL(fileURLWithPath: path).standardizedFileURL.pathComponents
    var directory = ""
    for component in components.dropLast() {
      directory = directory.isEmpty || directory == "/" ? directory + component : directory + "/" + component
      var info = stat()
      guard stat(directory, &info) == 0 else { return nil }
      if !allows(info, user, bit: 0o1) {
        return "user: \(user) cannot reach \(path): \(directory) (mode \(octal(info.st_mode)), owner "
          + "\(owner(info.st_uid))) does not let it in. Put the checkout and --artifacts where that user can "
          + "enter (a 0755 path such as /srv or /tmp)"
      }
    }
    var info = stat()
    if execute, stat(path, &info) == 0, !allows(info, user, bit: 0o1) {
      return "user: \(user) cannot execute \(path) (mode \(octal(info.st_mode)), owner \(owner(info.st_uid)))"
    }
    return nil
  }

  /// The permission `bit` (1 execute/search) of the class the kernel picks for `user`.
  static func allows(_ info: stat, _ user: RunAs, bit: mode_t) -> Bool {
    let mode = info.st_mode
    if info.st_uid == user.uid { return mode & (bit << 6) != 0 }
    if info.st_gid == user.gid { return mode & (bit << 3) != 0 }
    return mode & bit != 0
  }

  private static func octal(_ mode: mode_t) -> String { "0" + String(mode & 0o7777, radix: 8) }

  private static func owner(_ uid: uid_t) -> String {
    getpwuid(uid).map { String(cString: $0.pointee.pw_name) } ?? "uid \(uid)"
  }
}

extension ScenarioRunner {
  /// Before the first launch: every `user:` of the scenario can reach what it is given — the
  /// target and the work directory (its events file and state) for a launch, the state for a
  /// `before:` command, the scenario's folder (its working directory) for a request's command. Otherwise the scenario could not
  /// run, with the directory that stops that user.
  func checkUserReach(_ scenario: Scenario, target: String, workDirectory: String) throws(ScenarioError) {
    let folder = URL(fileURLWithPath: scenario.path).standardizedFileURL.deletingLastPathComponent().path
    for launch in scenario.launches {
      var checks: [(RunAs, String, Bool, Int)] = []
      if let user = launch.user {
        checks += [(user, target, true, launch.line), (user, workDirectory + "/state", false, launch.line)]
      }
      for action in launch.before {
        if case .command(_, let user?, let line) = action {
          checks.append((user, workDirectory + "/state", false, line))
        }
      }
      for request in launch.requests {
        if case .command(let command) = request.action, let user = command.user {
          checks.append((user, folder + "/.", false, request.line))
        }
      }
      for (user, path, execute, line) in checks {
        if let problem = UserReach.problem(user, path: path, execute: execute) {
          throw ScenarioError(path: scenario.path, line: line, column: 1, message: problem)
        }
      }
    }
  }
}
