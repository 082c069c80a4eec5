import CFailpointFaults

/// The calling thread, as crash records and debuggers see it.
public enum CurrentThread {
  /// Names the calling thread (15 characters at most are kept by Linux).
  public static func setName(_ name: String) { cf_set_thread_name(name) }
}
