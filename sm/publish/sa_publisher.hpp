// The SA's view of a heavy sweep: builds its immutable snapshot from explicit inputs
// (the fabric, the routes and their per-path SLs, partitions, port tables, MFTs) and
// hands it to the SA, numbering the snapshots, and keeps what goes into every one of
// them that the sweep does not make: the prefix routes (prefix_routes_file). It never
// sees the SM. SM thread only; the SA's readers take its snapshot on theirs.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/log.hpp"
#include "sa/prefix_routes.hpp"
#include "sa/server.hpp"
#include "sa/snapshot.hpp"
#include "sm/publish/sa_snapshot.hpp"

namespace ibsm::sm::publish {

class SaPublisher {
 public:
  explicit SaPublisher(Logger log) : log_(std::move(log)) {}

  // prefix_routes_file (sa/prefix_routes.hpp): read at start-up and on SIGHUP, as a
  // whole; a file that does not parse is logged and the last good routes stay.
  void load_prefix_routes(const std::string& file);
  const std::shared_ptr<const sa::PrefixRoutes>& prefix_routes() const { return prefix_routes_; }

  // Numbers the SA's snapshots: publish() takes one, so does the SM when it amends the
  // snapshot in place (new MFTs between sweeps).
  std::uint64_t next_generation() { return ++generation_; }
  std::uint64_t generation() const { return generation_; }

  // Builds the snapshot of `in` (its generation and prefix routes are set here), lets
  // `decorate` add to it (the QoS policy), logs the prefix routes that name no router
  // of the fabric when that list changed, and makes it the SA's (sa.rebuild).
  void publish(sa::SaServer& sa, SaSnapshotInput in,
               const std::function<void(sa::Snapshot&)>& decorate);

 private:
  Logger log_;
  std::uint64_t generation_ = 0;
  std::shared_ptr<const sa::PrefixRoutes> prefix_routes_;  // last good prefix_routes_file
  std::vector<std::string> unrouted_;                      // last logged IBSM-7041 lines
};

}  // namespace ibsm::sm::publish
