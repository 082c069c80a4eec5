/// The one duration grammar, for scenario YAML (`timeout: 10s`) and the command line
/// (`chaos explore --time 5m`): a number with a unit `ms`, `s`, `m` or `h`, or a plain
/// number of seconds (`2.5`).
package enum DurationText {
  private static let units: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]

  /// The duration in seconds; nil when `text` is not one, or not finite (`inf`, `nan`). The
  /// caller bounds it (more than 0, at most an hour, …) and says so in its own words.
  package static func seconds(_ text: String) -> Double? {
    if let plain = Double(text) { return plain.isFinite ? plain : nil }
    // `ms` before `s` and `m`: the longest unit that ends the text.
    guard let unit = units.first(where: { text.hasSuffix($0.suffix) }),
      let value = Double(text.dropLast(unit.suffix.count)), value.isFinite
    else { return nil }
    return value * unit.seconds
  }
}
