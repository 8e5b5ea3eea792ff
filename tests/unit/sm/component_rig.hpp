// A sweep component's test bench without a SubnetManager: a FakeFabric, an SmpClient on
// it, the fabric model Discovery builds, and a SweepContext over them. LIDs are put on
// the fake's ports (switch port 0 and CA ports, 1, 2, ... in description order) before
// discovery, so the model reads them as a subnet brought up earlier would show them.
#pragma once

#include <chrono>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "common/clock.hpp"
#include "conf/options.hpp"
#include "mad/smp_client.hpp"
#include "sm/discovery.hpp"
#include "sm/fabric.hpp"
#include "sm/sweep/sweep_context.hpp"
#include "sm/sweep_report.hpp"
#include "tests/fake/fake_fabric.hpp"
#include "tests/support/log_capture.hpp"
#include "tests/support/net_file.hpp"

namespace ibsm::sm::component_rig {

class ComponentRig {
 public:
  explicit ComponentRig(testsupport::Fabric desc)
      : fake(std::make_unique<fake::FakeFabric>(desc, clock)),
        client(*fake, clock, logger, mad::SmpClientSettings{}) {
    number_lids();
    discover();
  }

  // Gives every switch port 0 and CA port a LID on the fake.
  void number_lids() {
    mad::Lid next = 1;
    for (std::uint32_t i = 0; i < fake->size(); ++i) {
      fake::FakeNode& n = fake->node(i);
      for (PortNum p = 0; p <= n.num_ports(); ++p) {
        if (n.is_switch() ? p != 0 : p == 0) continue;
        n.ports[p].info.lid = next++;
      }
    }
  }

  // A new model of the fake as it is now, its ports' LIDs as read.
  void discover() {
    model = Fabric{};
    report = SweepReport{};
    Discovery d(model, client, report, logger);
    d.start();
    drain();
    d.finish();
    for (const auto& h : model.lid_holders()) {
      Port& p = model.node(h.node).ports[h.port];
      p.lid = p.info.lid;
      p.lmc = 0;
    }
  }

  void drain() {
    while (!client.idle())
      client.poll(std::chrono::milliseconds(100));
  }

  SweepContext ctx() {
    SweepContext c{model, report, client, options};
    c.on_failure = [this](const mad::SmpOutcome& o) { failures.push_back(o.request.describe()); };
    return c;
  }

  std::string log() const { return log_text.str(); }

  FakeClock clock;
  std::ostringstream log_text;
  Logger logger = testsupport::capture_log(log_text, "sm", spdlog::level::info);
  std::unique_ptr<fake::FakeFabric> fake;
  mad::SmpClient client;
  conf::Options options;
  Fabric model;
  SweepReport report;
  std::vector<std::string> failures;  // what SweepContext::on_failure heard
};

inline testsupport::Fabric parse(std::string_view text) {
  auto f = testsupport::parse_net(text);
  if (!f.ok()) return {};
  return *f;
}

}  // namespace ibsm::sm::component_rig
