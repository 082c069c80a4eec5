/// A scenario file that cannot be used, located to the line and column.
public struct ScenarioError: Error, CustomStringConvertible, Equatable {
  /// The file.
  public var path: String
  /// 1-based line (0 when unknown).
  public var line: Int
  /// 1-based column (0 when unknown).
  public var column: Int
  /// What is wrong.
  public var message: String

  /// Creates an error.
  public init(path: String, line: Int, column: Int, message: String) {
    self.path = path
    self.line = line
    self.column = column
    self.message = message
  }

  /// `path:line:column: message`, or `path: message` when there is no position (a file that
  /// cannot be read, a target that is not a scenario): never a made-up `:0:0`.
  public var description: String {
    line > 0 ? "\(path):\(line):\(max(column, 1)): \(message)" : "\(path): \(message)"
  }
}
