// One heavy sweep's context on a FakeFabric without a SubnetManager, for the tests of
// the sweep components (sm/lids, sm/links, sm/qos, sm/mkey, sm/routes, sm/tables): the
// fake, an SmpClient on it, the model discovery built, a report, and a SweepContext over
// them that records what on_failure heard. Pure work runs inline; a test that wants to
// see it hand over sets ctx.run_pure. NumberedRig starts from a subnet brought up earlier.
#pragma once

#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "conf/options.hpp"
#include "mad/smp_client.hpp"
#include "sm/discovery/discovery.hpp"
#include "sm/fabric/fabric.hpp"
#include "sm/sweep/sweep_context.hpp"
#include "sm/sweep/sweep_report.hpp"
#include "tests/fake/fake_fabric.hpp"
#include "tests/support/log_capture.hpp"
#include "tests/support/net_file.hpp"

namespace ibsm::sm::testrig {

struct ComponentRig {
  explicit ComponentRig(const testsupport::Fabric& d, fake::FakeOptions fo = {})
      : fabric(std::make_unique<fake::FakeFabric>(d, clock, fo)),
        client(*fabric, clock, log, mad::SmpClientSettings{}) {}

  // Waits for every answer (the SM's drain, without the SA).
  void drain() {
    while (!client.idle())
      client.poll(std::chrono::milliseconds(100));
  }
  // A fresh model of the fake, as a heavy sweep's discovery builds it.
  void discover() {
    model = Fabric{};
    Discovery d(model, client, report, log);
    d.start();
    drain();
    d.finish();
  }
  // The model's port of the fake's node `id` (a CA's port 1, a switch's port 0).
  Port& port(const std::string& id) {
    const auto& fn = fabric->node(fabric->index(id));
    const NodeIndex i = model.find(fn.info.node_guid);
    Node& n = model.node(i);
    return n.ports[n.is_switch() ? 0 : 1];
  }
  SweepContext ctx() {
    SweepContext c{model, report, client, options};
    c.on_failure = [this](const mad::SmpOutcome& o) { failures.push_back(o.request.describe()); };
    return c;
  }

  FakeClock clock;
  std::ostringstream log_text;
  Logger log = testsupport::capture_log(log_text, "component");
  std::unique_ptr<fake::FakeFabric> fabric;
  mad::SmpClient client;
  conf::Options options;
  Fabric model;
  SweepReport report;
  std::vector<std::string> failures;  // what SweepContext::on_failure heard
};

// A rig whose fake already holds LIDs (switch port 0 and CA ports, 1, 2, ... in node
// order), discovered once: the model reads them as a subnet brought up earlier shows them.
struct NumberedRig : ComponentRig {
  explicit NumberedRig(const testsupport::Fabric& d) : ComponentRig(d) {
    number_lids();
    discover_numbered();
  }
  void number_lids() {
    mad::Lid next = 1;
    for (std::uint32_t i = 0; i < fabric->size(); ++i) {
      fake::FakeNode& n = fabric->node(i);
      for (PortNum p = 0; p <= n.num_ports(); ++p) {
        if (n.is_switch() ? p != 0 : p == 0) continue;
        n.ports[p].info.lid = next++;
      }
    }
  }
  // A new model of the fake as it is now, its ports' LIDs as read.
  void discover_numbered() {
    report = SweepReport{};
    discover();
    for (const auto& h : model.lid_holders()) {
      Port& p = model.node(h.node).ports[h.port];
      p.lid = p.info.lid;
      p.lmc = 0;
    }
  }
};

inline testsupport::Fabric parse(std::string_view text) {
  auto f = testsupport::parse_net(text);
  if (!f.ok()) return {};
  return *f;
}

// A switch "s1" with hosts h1 (the SM) and h2, a second switch "s2" with h3.
inline testsupport::Fabric two_switches() {
  testsupport::Fabric d;
  d.nodes.push_back({testsupport::NodeType::kSwitch, "s1", "s1", 4});
  d.nodes.push_back({testsupport::NodeType::kSwitch, "s2", "s2", 4});
  d.nodes.push_back({testsupport::NodeType::kCa, "h1", "h1", 1});
  d.nodes.push_back({testsupport::NodeType::kCa, "h2", "h2", 1});
  d.nodes.push_back({testsupport::NodeType::kCa, "h3", "h3", 1});
  d.cables = {{{0, 1}, {2, 1}}, {{0, 2}, {3, 1}}, {{0, 3}, {1, 3}}, {{1, 1}, {4, 1}}};
  testsupport::assign_ibsim_guids(d);
  return d;
}

}  // namespace ibsm::sm::testrig
