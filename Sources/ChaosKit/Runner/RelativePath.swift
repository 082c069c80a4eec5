import Foundation

/// Paths relative to a folder, with `..` where they part.
package enum RelativePath {
  /// `path` relative to `directory` (each absolute, or relative to the working directory): a
  /// written scenario naming its target, a report linking to the artifacts beside it, both
  /// still right after the two are moved together (a CI artifact download).
  package static func of(_ path: String, from directory: String) -> String {
    let from = URL(fileURLWithPath: directory).standardizedFileURL.pathComponents
    let to = URL(fileURLWithPath: path).standardizedFileURL.pathComponents
    let shared = zip(from, to).prefix { $0 == $1 }.count
    return (Array(repeating: "..", count: from.count - shared) + to.dropFirst(shared)).joined(separator: "/")
  }
}
