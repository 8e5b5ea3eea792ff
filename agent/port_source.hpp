// The port-data seam: where RDMA devices and their ports (state, LIDs, P_Key
// table, GIDs) come from. SysfsPortSource reads a (possibly fake) tree through
// Fs; UmadPortSource asks libibumad, which also works on simulated ports under
// umad2sim (it intercepts libibumad's sysfs reads, not ours).
#pragma once

#include <vector>

#include "agent/fs.hpp"
#include "agent/observed.hpp"
#include "common/result.hpp"

namespace ibsm::agent {

class PortSource {
 public:
  virtual ~PortSource() = default;
  virtual Result<std::vector<RdmaDevice>> devices() const = 0;
};

class SysfsPortSource final : public PortSource {
 public:
  explicit SysfsPortSource(const Fs& fs) : fs_(fs) {}
  Result<std::vector<RdmaDevice>> devices() const override;

 private:
  const Fs& fs_;
};

class UmadPortSource final : public PortSource {
 public:
  // `extras` supplies what libibumad does not read: GID types/netdevs, soft-device parents.
  explicit UmadPortSource(const Fs& extras) : extras_(extras) {}
  Result<std::vector<RdmaDevice>> devices() const override;

 private:
  const Fs& extras_;
};

// Sysfs helpers shared by both sources.
// "4: ACTIVE" -> {4, "ACTIVE"}
std::pair<int, std::string> parse_numbered_state(const std::string& text);
// "fe80:0000:0000:0000:0002:c903:0000:1234" -> 0x0002c90300001234 (its GUID half).
std::uint64_t gid_guid(const std::string& gid);
// Fills gids (with types/ndevs) of `port` from /sys/class/infiniband/<dev>/ports/<n>.
void read_gids(const Fs& fs, const std::string& dev, PortState& port);

}  // namespace ibsm::agent
