/// Why an unfinished launch is not a crash. A struct, not an enum, so that a later version can
/// add a reason without breaking a caller's `switch`: compare with the values below, or switch
/// over ``rawValue`` and keep a `default`. The state file holds the ``rawValue``.
public struct UncountedReason: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible {
  /// The name the state file and events hold (`cleanExit`, `terminated`, `reboot`).
  public let rawValue: String

  @usableFromInline init(_ rawValue: String) { self.rawValue = rawValue }

  /// The reason this version knows by that name; nil for any other (a state file written by a
  /// newer version is reported, not guessed at).
  public init?(rawValue: String) {
    guard let known = Self.all.first(where: { $0.rawValue == rawValue }) else { return nil }
    self = known
  }

  /// The process called `exit(0)` during launch.
  @_alwaysEmitIntoClient
  public static var cleanExit: UncountedReason { UncountedReason("cleanExit") }
  /// A stop was requested during the launch (a clean shutdown).
  @_alwaysEmitIntoClient
  public static var terminated: UncountedReason { UncountedReason("terminated") }
  /// The machine rebooted since (boot id changed).
  @_alwaysEmitIntoClient
  public static var reboot: UncountedReason { UncountedReason("reboot") }

  /// Every reason this version knows.
  public static let all: [UncountedReason] = [.cleanExit, .terminated, .reboot]

  /// The name.
  public var description: String { rawValue }

  /// Decoded from its name, as the enum was; an unknown name is a decoding error.
  public init(from decoder: any Decoder) throws {
    let name = try decoder.singleValueContainer().decode(String.self)
    guard let known = UncountedReason(rawValue: name) else {
      throw DecodingError.dataCorrupted(
        .init(codingPath: decoder.codingPath, debugDescription: "no reason named \(name)"))
    }
    self = known
  }

  /// Encoded as its name, as the enum was.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }
}
