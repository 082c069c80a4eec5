import CCrashCapture

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Reads the crash reports the handler dropped in the state directory, turning each into a
/// `CrashCause` for the next launch, and removes them once used.
enum CrashReports {
  /// The empty file the crash handler creates beside each report it writes.
  static let markerName = LCC_REPORT_MARKER

  /// The reports this launch reads (by name), the problems of the entries refused (moved
  /// aside: a symlink, a FIFO, another user's file), and whether the handler's marker was
  /// there. The directory is listed only when the marker says a report waits, or when the
  /// executable changed (a version without the marker may have left one): the usual launch
  /// pays one `fstatat`, not a directory listing.
  static func waiting(in directory: StateDirectory, executableChanged: Bool) -> (
    reports: [(name: String, cause: CrashCause)], refused: [StateProblem], marked: Bool
  ) {
    var info = stat()
    let marked = fstatat(directory.fd, markerName, &info, AT_SYMLINK_NOFOLLOW) == 0
    guard marked || executableChanged else { return ([], [], false) }
    let (reports, refused) = all(in: directory)
    return (reports, refused, marked)
  }

  /// Once the reports read are removed: the marker goes, then comes back when a report is
  /// still there (one written meanwhile, or one that could not be read), so no report is
  /// left without it.
  static func settleMarker(in directory: StateDirectory) {
    unlinkat(directory.fd, markerName, 0)
    guard !reportNames(in: directory).isEmpty else { return }
    let fd = openat(directory.fd, markerName, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
    if fd >= 0 { close(fd) }
  }

  /// Every report in the directory (including those of crashes after launch finished), and
  /// the problems of those refused by the trust rule, each moved aside.
  static func all(in directory: StateDirectory) -> (
    reports: [(name: String, cause: CrashCause)], refused: [StateProblem]
  ) {
    let names = reportNames(in: directory)
    guard !names.isEmpty else { return ([], []) }
    var reports: [(name: String, cause: CrashCause)] = []
    var refused: [StateProblem] = []
    for name in names.sorted() {
      do throws(DurableFile.Failure) {
        guard let file = try DurableFile.read(in: directory, name) else { continue }
        if let cause = parse(file.bytes, info: file.info) { reports.append((name, cause)) }
      } catch {
        guard var problem = error.refusal else { continue }
        let target = name + ".refused"
        if renameat(directory.fd, name, directory.fd, target) == 0 { problem.movedTo = directory.path + "/" + target }
        refused.append(problem)
      }
    }
    return (reports, refused)
  }

  /// The names of `crash-*.json` files in `directory`, with readdir on a descriptor of its
  /// own (`openat` of `.`, so each listing starts at the first entry): this runs in every
  /// launch that finds the marker, and FileManager's first directory listing in a process
  /// costs about 1.5 ms here. A name becomes a String only when its bytes match: the state and
  /// lock files never do.
  static func reportNames(in directory: StateDirectory) -> [String] {
    let fd = StateDirectory.readable(directory.fd)
    guard fd >= 0 else { return [] }
    guard let stream = fdopendir(fd) else {
      close(fd)
      return []
    }
    defer { closedir(stream) }
    var names: [String] = []
    while let entry = readdir(stream) {
      let name = DirectoryEntry.name(entry)
      if name.count >= prefixBytes.count + suffixBytes.count, name.starts(with: prefixBytes),
        name[(name.count - suffixBytes.count)...].elementsEqual(suffixBytes)
      {
        names.append(String(decoding: name, as: UTF8.self))
      }
    }
    return names
  }

  private static let prefixBytes = Array(CrashCapture.reportPrefix.utf8)
  private static let suffixBytes = Array(".json".utf8)

  /// The cause a report gives, read with the state file's JSON parser (the report is one JSON
  /// line; a field that is absent or of another type is left out, a file that is not JSON gives
  /// nil); its time is the file's modification time, from its `fstat` (`info`).
  static func parse(_ contents: [UInt8], info: stat) -> CrashCause? {
    guard let line = contents.split(separator: 0x0A, maxSplits: 1).first,
      let report = try? StateJSON.Document(Array(line)),
      let signal = report.lenientString(report.rootMember("signal_name"))
    else { return nil }
    func field(_ key: StaticString) -> Int? { report.rootMember(key) }
    let thread = report.lenientInteger(field("thread"), as: Int.self).map(String.init) ?? "?"
    let name = report.lenientString(field("thread_name")) ?? ""
    let main = report.lenientBoolean(field("main_thread")) == true ? "main thread" : "thread \(thread) \(name)"
    let frames = (report.lenientStrings(field("frames")) ?? []).prefix(5).joined(separator: " ")
    let code = report.lenientInteger(field("code"), as: Int.self) ?? 0
    let address = report.lenientString(field("addr")) ?? "?"
    let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
    return CrashCause(
      type: report.lenientString(field("cause")) ?? signal,
      detail: "\(main), code \(code), addr \(address), top frames \(frames)",
      pid: report.lenientInteger(field("pid"), as: Int32.self),
      afterLaunch: report.lenientBoolean(field("after_launch")) ?? false, recordedSeconds: modified)
  }

}
