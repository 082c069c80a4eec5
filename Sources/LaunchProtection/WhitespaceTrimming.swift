#if canImport(FoundationEssentials)
  // FoundationEssentials has no `CharacterSet` and no `trimmingCharacters(in:)`, which
  // `SignalfdConsumer` (StopSignalReport.swift) calls on a `/proc/self/fdinfo` line. This
  // gives that one call its meaning for the spaces and tabs procfs writes, so the file builds
  // without Foundation; remove it once that code trims the line itself.
  extension Substring {
    /// The characters `trimmingCharacters(in:)` removes here: spaces and tabs.
    enum TrimmedCharacters {
      /// Spaces and tabs, as Foundation's `CharacterSet.whitespaces` for ASCII text.
      case whitespaces
    }

    /// The text without its leading and trailing spaces and tabs.
    func trimmingCharacters(in set: TrimmedCharacters) -> String {
      let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
      return String(drop(while: isBlank).reversed().drop(while: isBlank).reversed())
    }
  }
#endif
