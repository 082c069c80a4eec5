import Foundation

/// Whether this machine can boot a throwaway systemd for `systemd:` scenarios: root, Debian's
/// `systemd-container` (systemd-nspawn) and util-linux's nsenter. Where it cannot, the
/// scenario cannot run, and says what it needs.
enum SystemdSupport {
  /// Why `systemd:` cannot run here (nil: it can, as far as can be told before a boot).
  static let problem: String? = {
    let needs = "cannot run: needs"
    guard geteuid() == 0 else {
      return "systemd: \(needs) root (systemd-nspawn boots a container): run chaos as root, or in a privileged "
        + "container (docker run --privileged; GitHub Actions: container.options: --privileged)"
    }
    guard MachineCommand.find("systemd-nspawn") != nil else {
      return "systemd: \(needs) systemd-nspawn (CI/setup installs it: apt-get install systemd-container)"
    }
    guard MachineCommand.find("nsenter") != nil else {
      return "systemd: \(needs) nsenter (apt-get install util-linux)"
    }
    guard access("/usr/lib/systemd/systemd", X_OK) == 0 || access("/lib/systemd/systemd", X_OK) == 0 else {
      return "systemd: \(needs) systemd in this machine's image (/usr/lib/systemd/systemd), which the container boots"
    }
    _ = SystemdMachines.swept
    return nil
  }()
}
