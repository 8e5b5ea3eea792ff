#include "tests/fake/fake_ops_snapshot.hpp"

namespace ibsm::fake {

namespace {

constexpr std::uint8_t kWidth4x = 2;   // LinkWidthActive 4x
constexpr std::uint8_t kSpeedEdr = 2;  // LinkSpeedExtActive EDR
constexpr std::time_t kFirstReading = 1'800'000'000;

std::shared_ptr<sa::Snapshot> fabric_snapshot(const testsupport::Fabric& f) {
  auto s = std::make_shared<sa::Snapshot>();
  s->nodes.resize(f.nodes.size());
  mad::Lid next_lid = 1;
  for (std::uint32_t n = 0; n < f.nodes.size(); ++n) {
    const testsupport::Node& from = f.nodes[n];
    sa::SnapNode& to = s->nodes[n];
    to.info.node_type = from.type == testsupport::NodeType::kSwitch ? mad::NodeType::kSwitch
                        : from.type == testsupport::NodeType::kCa   ? mad::NodeType::kCa
                                                                    : mad::NodeType::kRouter;
    to.info.num_ports = from.num_ports;
    to.info.node_guid = from.node_guid;
    to.info.system_image_guid = from.system_guid;
    to.info.port_guid = from.port_guid(to.is_switch() ? 0 : 1);
    to.description = from.description.empty() ? from.id : from.description;
    to.ports.resize(std::size_t{from.num_ports} + 1);
    for (unsigned p = 0; p <= from.num_ports; ++p) {
      sa::SnapPort& port = to.ports[p];
      port.num = static_cast<mad::PortNum>(p);
      port.present = to.is_switch() || p != 0;
      port.guid = from.port_guid(static_cast<std::uint8_t>(p));
      port.info.port_state = mad::PortState::kDown;
      if (to.is_switch() ? p == 0 : p != 0) port.lid = next_lid++;
    }
    if (to.is_switch()) to.ports[0].info.port_state = mad::PortState::kActive;
  }
  for (const testsupport::Cable& c : f.cables) {
    for (const auto& [a, b] : {std::pair{c.a, c.b}, std::pair{c.b, c.a}}) {
      sa::SnapPort& port = s->nodes[a.node].ports[a.port];
      port.peer = sa::PortRef{b.node, b.port};
      port.info.port_state = mad::PortState::kActive;
      port.info.link_width_active = kWidth4x;
      port.info.link_speed_ext_active = kSpeedEdr;
    }
  }
  s->index();
  return s;
}

// Traffic that differs from port to port but is the same on every run.
std::uint64_t traffic(std::size_t row, std::size_t counter) {
  return (row * 2654435761u + counter * 40503u) % 1'000'000'007u * 1000u;
}

}  // namespace

std::shared_ptr<ops::OpsSnapshot> ops_snapshot_of(const testsupport::Fabric& f) {
  auto ops = std::make_shared<ops::OpsSnapshot>();
  ops->version = "test";
  ops->state = mad::SmState::kMaster;
  ops->routing.engine = "ftree";
  ops->routing.graded = true;
  auto fabric = fabric_snapshot(f);
  auto counters = std::make_shared<perfmgr::CounterSnapshot>();
  for (const sa::SnapNode& node : fabric->nodes) {
    for (const sa::SnapPort& port : node.ports) {
      // The PerfMgr reads every port of a switch, cabled or not, and cabled CA ports.
      if (port.num == 0 || !port.present || (!node.is_switch() && !port.peer.valid())) continue;
      perfmgr::PortCounterRow r;
      r.guid = node.guid();
      r.name = node.description;
      r.is_switch = node.is_switch();
      r.port = port.num;
      if (port.peer.valid()) {
        const sa::SnapNode& peer = fabric->node(port.peer);
        r.remote_valid = true;
        r.remote_guid = peer.guid();
        r.remote_name = peer.description;
        r.remote_port = port.peer.port;
        r.link_width_active = port.info.link_width_active;
        r.link_speed_ext_active = port.info.link_speed_ext_active;
      }
      for (std::size_t d = 0; d < perfmgr::kDataCount; ++d)
        r.data.v[d] = traffic(counters->ports.size(), d);
      r.err.time = r.data.time = kFirstReading;
      counters->ports.push_back(std::move(r));
    }
  }
  counters->sweeps = 1;
  counters->last_sweep_seconds = 0.5;
  ops->perfmgr_enabled = true;
  ops->perf_counters = std::move(counters);
  ops->fabric = std::move(fabric);
  ops->node_names = std::make_shared<names::NodeNameMap>();
  return ops;
}

perfmgr::CounterSnapshotPtr counters_later(const perfmgr::CounterSnapshot& before,
                                           std::uint64_t seconds, std::uint64_t errors,
                                           std::size_t every) {
  auto after = std::make_shared<perfmgr::CounterSnapshot>(before);
  for (std::size_t i = 0; i < after->ports.size(); ++i) {
    perfmgr::PortCounterRow& r = after->ports[i];
    for (std::size_t d = 0; d < perfmgr::kDataCount; ++d)
      r.data.v[d] += traffic(i, d) / 1000 * seconds;
    if (every != 0 && i % every == 0) r.err[perfmgr::Err::kRcv] += errors;
    r.err.time += static_cast<std::time_t>(seconds);
    r.data.time += static_cast<std::time_t>(seconds);
  }
  ++after->sweeps;
  return after;
}

}  // namespace ibsm::fake
