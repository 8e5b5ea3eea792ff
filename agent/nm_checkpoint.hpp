// NetworkManager's checkpoints (its D-Bus API, org.freedesktop.NetworkManager
// CheckpointCreate/Rollback/Destroy, NM >= 1.12): apply takes one before the
// first NetworkManager action and rolls back to it when an action fails. The
// checkpoint carries a rollback timeout, so NetworkManager also rolls back by
// itself when the agent never comes back to destroy it — an apply killed midway,
// or the management connection lost with it.
//
// Driven through busctl(1), which every systemd host has, rather than libnm (a
// GLib main loop in a short-lived CLI for three calls) or gdbus (libglib2.0-bin,
// one more package); nmcli has no checkpoint command.
#pragma once

#include <string>

#include "agent/kernel.hpp"
#include "common/result.hpp"

namespace ibsm::agent {

class Checkpointer {
 public:
  virtual ~Checkpointer() = default;
  // A checkpoint of every device; the returned id names it.
  virtual Result<std::string> create(unsigned rollback_timeout_s) = 0;
  virtual Status rollback(const std::string& id) = 0;
  virtual Status destroy(const std::string& id) = 0;
};

class BusctlCheckpointer final : public Checkpointer {
 public:
  explicit BusctlCheckpointer(const CommandRunner& runner) : runner_(runner) {}
  Result<std::string> create(unsigned rollback_timeout_s) override;
  Status rollback(const std::string& id) override;
  Status destroy(const std::string& id) override;

 private:
  const CommandRunner& runner_;
};

// Flags of CheckpointCreate: DELETE_NEW_CONNECTIONS (0x2) and DISCONNECT_NEW_DEVICES
// (0x4), so that a rollback also removes the profiles and children the apply added.
inline constexpr unsigned kCheckpointFlags = 0x2 | 0x4;

// The object path in busctl's answer `o "/org/freedesktop/NetworkManager/Checkpoint/3"`.
Result<std::string> parse_checkpoint_path(const std::string& busctl_output);

}  // namespace ibsm::agent
