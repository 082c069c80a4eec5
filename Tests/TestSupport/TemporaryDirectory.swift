import Foundation

/// A fresh directory under the system temp dir, removed when released.
public final class TemporaryDirectory: @unchecked Sendable {
  /// Absolute path.
  public let path: String

  /// Creates the directory.
  public init(_ label: String = "launchchaos") {
    var template = Array("\(NSTemporaryDirectory())/\(label)-XXXXXX".utf8CString)
    path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
  }

  /// `path/name`.
  public func file(_ name: String) -> String { path + "/" + name }

  deinit { try? FileManager.default.removeItem(atPath: path) }
}
