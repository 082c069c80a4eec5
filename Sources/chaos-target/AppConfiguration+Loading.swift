#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Reading `CHAOS_APP`: an unknown field is named before JSONDecoder, which ignores it, decodes.
extension AppConfiguration {
  static func load(from text: String?) throws -> AppConfiguration {
    guard let text, !text.allSatisfy({ $0 == " " || $0 == "\t" }) else { return AppConfiguration() }
    let data = Data(text.utf8)
    if let fields = try? JSONDecoder().decode(FieldNames.self, from: data) {
      let known = Set(CodingKeys.allCases.map(\.rawValue))
      if let unknown = fields.names.sorted().first(where: { !known.contains($0) }) {
        throw ConfigurationError(
          message: "unknown field '\(unknown)' (known: \(known.sorted().joined(separator: ", ")))")
      }
      let dependencyKeys = Set(Dependency.CodingKeys.allCases.map(\.rawValue))
      if let dependency = fields.dependencyNames,
        let unknown = dependency.sorted().first(where: { !dependencyKeys.contains($0) })
      {
        let known = dependencyKeys.sorted().joined(separator: ", ")
        throw ConfigurationError(message: "unknown field '\(unknown)' in dependency (known: \(known))")
      }
    }
    return try JSONDecoder().decode(AppConfiguration.self, from: data)
  }
}

/// The field names of a `CHAOS_APP` object and of its `dependency` object, for the check that
/// names an unknown field (JSONDecoder alone ignores them).
private struct FieldNames: Decodable {
  struct Name: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  var names: [String]
  var dependencyNames: [String]?

  init(from decoder: any Decoder) throws {
    let object = try decoder.container(keyedBy: Name.self)
    names = object.allKeys.map(\.stringValue)
    let dependency = try? object.nestedContainer(keyedBy: Name.self, forKey: Name(stringValue: "dependency"))
    dependencyNames = dependency?.allKeys.map(\.stringValue)
  }
}

struct ConfigurationError: Error, CustomStringConvertible {
  var message: String
  var description: String { message }
}
