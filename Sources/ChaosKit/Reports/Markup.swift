/// Escaping for the markup the reports write (JUnit XML, HTML and inline SVG): `&`, `<`, `>`
/// and both quotes become entities, so the result is safe in text and in quoted attributes;
/// characters XML 1.0 forbids (other control characters, U+FFFE, U+FFFF) are dropped.
package enum Markup {
  /// The text, escaped.
  package static func escape(_ text: String) -> String {
    var escaped = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": escaped += "&amp;"
      case "<": escaped += "&lt;"
      case ">": escaped += "&gt;"
      case "\"": escaped += "&quot;"
      case "'": escaped += "&apos;"
      case "\t", "\n", "\r": escaped.unicodeScalars.append(scalar)
      default:
        if scalar.value >= 0x20 && scalar.value != 0xFFFE && scalar.value != 0xFFFF {
          escaped.unicodeScalars.append(scalar)
        }
      }
    }
    return escaped
  }

}
