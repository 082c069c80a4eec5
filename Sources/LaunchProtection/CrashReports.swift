import CCrashCapture
import Foundation

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

  static func parse(path: String) -> CrashCause? {
    guard let data = FileManager.default.contents(atPath: path),
      let line = data.split(separator: 0x0A).first,
      let object = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any],
      let signal = object["signal_name"] as? String
    else { return nil }
    let thread = (object["thread"] as? Int).map(String.init) ?? "?"
    let name = (object["thread_name"] as? String) ?? ""
    let main = (object["main_thread"] as? Bool) == true ? "main thread" : "thread \(thread) \(name)"
    let frames = ((object["frames"] as? [String]) ?? []).prefix(5).joined(separator: " ")
    let attributes = try? FileManager.default.attributesOfItem(atPath: path)
    let modified = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? Date().timeIntervalSince1970
    return CrashCause(
      type: (object["cause"] as? String) ?? signal,
      detail:
        "\(main), code \(object["code"] as? Int ?? 0), addr \(object["addr"] as? String ?? "?"), top frames \(frames)",
      pid: (object["pid"] as? Int).map { Int32($0) }, afterLaunch: (object["after_launch"] as? Bool) ?? false,
      recordedAt: modified)
  }
}
