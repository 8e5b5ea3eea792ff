// A plan: the actions that turn observed into desired, the plan errors that
// stop it (known run-time failures caught early), and what the agent saw but
// will not touch.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "agent/action.hpp"
#include "agent/node_config.hpp"
#include "common/error.hpp"

namespace ibsm::agent {

// One IPoIB interface after resolution: names, P_Key and MTU are final.
struct ResolvedIface {
  std::string name;
  std::string parent;  // empty for the parent interface itself
  std::string device;
  int port = 0;
  std::uint16_t pkey = 0;  // normalised; children only
  IpoibMode mode = IpoibMode::kDatagram;
  int mtu = 0;
  // mtu = "auto": the kernel decides (datagram: the broadcast group's MTU - 4, which the
  // host cannot know before the join; connected: 65520), so any value up to `mtu` matches.
  bool mtu_auto = false;
  std::vector<std::string> addresses;
  Membership membership = Membership::kFull;
  bool exists = false;   // the netdev exists now
  bool blocked = false;  // unusable for runtime changes (e.g. parent not yet renamed)
  // Why the interface cannot be applied yet (empty = it can): a fact the host does not
  // know yet, such as the broadcast group's MTU while the SA does not answer.
  std::string pending;
  std::string resource() const { return "ipoib " + name; }
};

// A resource that cannot be applied yet. Its actions are held (never run) and
// the rest of the plan goes ahead: sections are independent.
struct Pending {
  std::string resource;
  std::string reason;
};

struct Plan {
  std::string backend;  // networkmanager, networkd, direct
  std::vector<Action> actions;
  std::vector<Error> errors;
  std::vector<std::string> notes;      // foreign objects seen, pending SM facts, warnings
  std::vector<std::string> resources;  // every desired resource, for verify
  std::vector<ResolvedIface> interfaces;
  std::vector<Pending> pending;
  std::vector<Action> held;        // actions of pending resources, shown but never run
  std::optional<Memlock> memlock;  // the node file's, for verify's limits-in-force check
  // What the host cannot do (a NIC without DCB operations, a dcb without apptrust): no
  // actions, verify says "skipped" with the reason, and nothing waits for it.
  std::vector<Pending> skipped;

  bool is_pending(const std::string& resource) const;

  bool has_errors() const { return !errors.empty(); }
  // Actions refused without --force: disruptive on a protected interface.
  std::vector<const Action*> refused(const std::vector<std::string>& protected_ifaces) const;
};

}  // namespace ibsm::agent
