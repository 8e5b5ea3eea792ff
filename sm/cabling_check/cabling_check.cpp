// The cabling check: topo_config_file and the comparison at each heavy sweep
// (sm/cabling_check/cabling_check.hpp).
#include "sm/cabling_check/cabling_check.hpp"

#include <array>
#include <optional>

#include <spdlog/fmt/fmt.h>

#include "cabling/compare.hpp"
#include "cabling/link_rates_check.hpp"
#include "cabling/topology_file.hpp"
#include "sm/cabling_check/discovered_fabric.hpp"

namespace ibsm::sm::cabling_check {

CablingCheck::CablingCheck(Logger log)
    : log_(std::move(log)), status_(std::make_shared<const ops::CablingStatus>()) {}

Status CablingCheck::load(const std::string& path) {
  auto next = std::make_shared<ops::CablingStatus>(*status_);
  next->file = path;
  next->error.clear();
  next->file_ok = true;
  std::optional<Error> err;
  if (path.empty()) {
    intended_.reset();
    next->deviations.clear();
  } else {
    auto loaded = cabling::load_intended_topology(path);
    if (!loaded) {
      next->file_ok = false;
      next->error = to_string(loaded.error());
      log_->error("{}; {}", next->error,
                  intended_ ? "the last good topology file stays in force"
                            : "no topology file in force: the cabling is not compared");
      err = loaded.error();
    } else {
      log_->info("topo_config_file {}: {} nodes, {} links", path, loaded->nodes.size(),
                 loaded->links.size());
      intended_ = std::make_shared<const cabling::IntendedTopology>(std::move(loaded).value());
    }
  }
  next->file_loaded = intended_ != nullptr;
  if (!next->file_loaded) next->deviations.clear();
  status_ = std::move(next);
  if (err) return fail(*err);
  return {};
}

ops::CablingStatusPtr CablingCheck::check(const Fabric& fabric,
                                          std::chrono::system_clock::time_point now) {
  const auto t0 = std::chrono::steady_clock::now();
  const cabling::DiscoveredFabric found = discovered_fabric(fabric);
  auto next = std::make_shared<ops::CablingStatus>(*status_);
  next->deviations =
      intended_ ? cabling::compare_topology(*intended_, found) : std::vector<cabling::Deviation>{};
  next->degraded = cabling::find_degraded_links(found);
  next->checked = true;
  next->when = now;
  next->ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (next->deviations != status_->deviations)
    log_->info("cabling: {} deviations from {}{}{}", next->deviations.size(),
               intended_ ? intended_->file : std::string("no topology file"),
               next->deviations.empty() ? "" : ": ", kinds_summary(next->deviations));
  if (next->degraded.size() != status_->degraded.size())
    log_->info("cabling: {} links run below the width or speed both ends support",
               next->degraded.size());
  status_ = std::move(next);
  return status_;
}

std::string kinds_summary(const std::vector<cabling::Deviation>& list) {
  std::array<std::size_t, 8> count{};
  for (const auto& d : list)
    if (static_cast<std::size_t>(d.kind) < count.size()) ++count[static_cast<std::size_t>(d.kind)];
  std::string out;
  for (std::size_t k = 0; k < count.size(); ++k) {
    if (count[k] == 0) continue;
    if (!out.empty()) out += ',';
    out += fmt::format(
        "{}={}", cabling::deviation_kind_name(static_cast<cabling::DeviationKind>(k)), count[k]);
  }
  return out;
}

}  // namespace ibsm::sm::cabling_check
