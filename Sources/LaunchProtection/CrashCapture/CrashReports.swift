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

  /// The reports this launch reads, and whether the handler's marker was there. The directory
  /// is listed only when the marker says a report waits, or when the executable changed (a
  /// version without the marker may have left one): the usual launch pays one `access`, not a
  /// directory listing.
  static func waiting(directory: String, executableChanged: Bool) -> (
    reports: [(path: String, cause: CrashCause)], marked: Bool
  ) {
    let marked = access(directory + "/" + markerName, F_OK) == 0
    guard marked || executableChanged else { return ([], false) }
    return (all(directory: directory), marked)
  }

  /// Once the reports read are removed: the marker goes, then comes back when a report is
  /// still there (one written meanwhile, or one that could not be read), so no report is
  /// left without it.
  static func settleMarker(directory: String) {
    let marker = directory + "/" + markerName
    unlink(marker)
    guard !reportNames(in: directory).isEmpty else { return }
    let fd = open(marker, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
    if fd >= 0 { close(fd) }
  }

  /// Every report in the directory (including those of crashes after launch finished).
  static func all(directory: String) -> [(path: String, cause: CrashCause)] {
    let names = reportNames(in: directory)
    guard !names.isEmpty else { return [] }
    return names.sorted().compactMap {
      let path = directory + "/" + $0
      return parse(path: path).map { (path, $0) }
    }
  }

  /// The names of `crash-*.json` files in `directory`, with opendir/readdir: this runs in every
  /// launch, and FileManager's first directory listing in a process costs about 1.5 ms here.
  /// A name becomes a String only when its bytes match: the state and lock files never do.
  static func reportNames(in directory: String) -> [String] {
    guard let stream = opendir(directory) else { return [] }
    defer { closedir(stream) }
    var names: [String] = []
    while let entry = readdir(stream) {
      withUnsafeBytes(of: entry.pointee.d_name) { raw in
        let name = UnsafeRawBufferPointer(rebasing: raw[..<(raw.firstIndex(of: 0) ?? raw.count)])
        if name.count >= prefixBytes.count + suffixBytes.count, name.starts(with: prefixBytes),
          name[(name.count - suffixBytes.count)...].elementsEqual(suffixBytes)
        {
          names.append(String(decoding: name, as: UTF8.self))
        }
      }
    }
    return names
  }

  private static let prefixBytes = Array(CrashCapture.reportPrefix.utf8)
  private static let suffixBytes = Array(".json".utf8)

  /// The cause a report gives, read with the state file's JSON parser (the report is one JSON
  /// line; a field that is absent or of another type is left out, a file that is not JSON gives
  /// nil); its time is the file's modification time.
  static func parse(path: String) -> CrashCause? {
    guard case .success(let contents?) = DurableFile.read(path),
      let line = contents.split(separator: 0x0A, maxSplits: 1).first,
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
    var info = stat()
    let modified =
      stat(path, &info) == 0
      ? Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9 : Date().timeIntervalSince1970
    return CrashCause(
      type: report.lenientString(field("cause")) ?? signal,
      detail: "\(main), code \(code), addr \(address), top frames \(frames)",
      pid: report.lenientInteger(field("pid"), as: Int32.self),
      afterLaunch: report.lenientBoolean(field("after_launch")) ?? false, recordedAt: modified)
  }

}
