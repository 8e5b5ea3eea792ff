// One heavy sweep's context on a FakeFabric without a SubnetManager, for the tests of
// the sweep components (sm/lids, sm/links, sm/qos, sm/mkey): the fake, an SmpClient on
// it, the model discovery built, a report, and a SweepContext over them. Pure work runs
// inline; a test that wants to see it hand over sets ctx.run_pure.
#pragma once

#include <memory>
#include <sstream>

#include "conf/options.hpp"
#include "mad/smp_client.hpp"
#include "sm/discovery.hpp"
#include "sm/fabric.hpp"
#include "sm/sweep/sweep_context.hpp"
#include "sm/sweep_report.hpp"
#include "tests/fake/fake_fabric.hpp"
#include "tests/support/log_capture.hpp"

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
  SweepContext ctx() { return SweepContext{model, report, client, options}; }

  FakeClock clock;
  std::ostringstream log_text;
  Logger log = testsupport::capture_log(log_text, "component");
  std::unique_ptr<fake::FakeFabric> fabric;
  mad::SmpClient client;
  conf::Options options;
  Fabric model;
  SweepReport report;
};

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
