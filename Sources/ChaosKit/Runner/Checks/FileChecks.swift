import Foundation

/// `expect.files:` against the state directory once the launch's processes are gone: each
/// entry exists (a pattern matches at least one), and has its mode, type and owner
/// (``FileExpectation``). Entries are read with lstat: a link is judged as a link.
enum FileChecks {
  /// The failures of `expected` under `stateDirectory`.
  static func check(_ expected: [FileExpectation], stateDirectory: String) -> [ScenarioFailure] {
    expected.flatMap { check($0, stateDirectory: stateDirectory) }
  }

  static func check(_ entry: FileExpectation, stateDirectory: String) -> [ScenarioFailure] {
    let paths = matches(entry.path, in: stateDirectory)
    guard !paths.isEmpty else {
      return [.expected(.files, "\(entry.path) (line \(entry.line))", saw: "no such entry in \(stateDirectory)")]
    }
    var failures: [ScenarioFailure] = []
    for relative in paths {
      var info = stat()
      guard lstat(stateDirectory + "/" + relative, &info) == 0 else {
        failures.append(
          .expected(.files, "\(relative) (line \(entry.line))", saw: String(cString: strerror(errno))))
        continue
      }
      if let mode = entry.mode, info.st_mode & 0o7777 != mode {
        failures.append(
          .expected(.files, "\(relative) mode \(octal(mode))", saw: "mode \(octal(info.st_mode & 0o7777))"))
      }
      if let type = entry.type, typeName(info.st_mode) != type {
        failures.append(.expected(.files, "\(relative) a \(type)", saw: "a \(typeName(info.st_mode))"))
      }
      if let owner = entry.owner, info.st_uid != owner.uid {
        failures.append(.expected(.files, "\(relative) owned by \(owner)", saw: "owned by uid \(info.st_uid)"))
      }
    }
    return failures
  }

  /// The relative paths `pattern` names: itself, or the names of its folder its last
  /// component matches (fnmatch, sorted; `*` does not match a leading dot).
  static func matches(_ pattern: String, in stateDirectory: String) -> [String] {
    let name = URL(fileURLWithPath: pattern).lastPathComponent
    guard name.contains("*") || name.contains("?") else {
      var info = stat()
      return lstat(stateDirectory + "/" + pattern, &info) == 0 ? [pattern] : []
    }
    let folder = pattern.contains("/") ? String(pattern[..<pattern.lastIndex(of: "/")!]) : ""
    let names = (try? FileManager.default.contentsOfDirectory(atPath: stateDirectory + "/" + folder)) ?? []
    return names.filter { fnmatch(name, $0, FNM_PERIOD) == 0 }.sorted().map { folder.isEmpty ? $0 : folder + "/" + $0 }
  }

  private static func typeName(_ mode: mode_t) -> String {
    switch mode & S_IFMT {
    case S_IFREG: "file"
    case S_IFDIR: "directory"
    case S_IFLNK: "symlink"
    case S_IFIFO: "fifo"
    case S_IFSOCK: "socket"
    default: "special file"
    }
  }

  private static func octal(_ mode: mode_t) -> String {
    let digits = String(mode, radix: 8)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
  }
}
