import Foundation

/// The reference app's configuration, read from `CHAOS_APP` (JSON). Every field is optional.
///
/// ```json
/// { "threshold": 2,
///   "levels": [{"name": "clear-caches", "at": 2}, {"name": "reset-config", "at": 4}],
///   "protect_finish": "immediate" | "after_life_actions" | "never",
///   "launching_finished": true,
///   "life_actions": ["didBecomeActive"],
///   "stay_up": false,
///   "crash_capture": true, "chain": false, "max_frames": 128 }
/// ```
struct AppConfiguration: Decodable {
  struct Level: Decodable {
    var name: String
    var at: Int
  }

  enum ProtectFinish: String, Decodable {
    case immediate
    case afterLifeActions = "after_life_actions"
    case never
  }

  var threshold: Int?
  var levels: [Level]?
  var protectFinish: ProtectFinish?
  var launchingFinished: Bool?
  var lifeActions: [String]?
  var stayUp: Bool?
  var tasks: [String]?
  /// Install the crash handler (default true).
  var crashCapture: Bool?
  /// Hand crashes on to the previous handler, e.g. the Swift runtime's backtracer (default false:
  /// the runtime's backtracer waits 30 s for a key on a terminal).
  var chain: Bool?
  /// Frame cap of crash records (default 128).
  var maxFrames: Int?

  enum CodingKeys: String, CodingKey {
    case threshold, levels, tasks, chain
    case crashCapture = "crash_capture"
    case maxFrames = "max_frames"
    case protectFinish = "protect_finish"
    case launchingFinished = "launching_finished"
    case lifeActions = "life_actions"
    case stayUp = "stay_up"
  }

  static func load(from text: String?) throws -> AppConfiguration {
    guard let text, !text.trimmingCharacters(in: .whitespaces).isEmpty else { return AppConfiguration() }
    return try JSONDecoder().decode(AppConfiguration.self, from: Data(text.utf8))
  }
}
