// Prints docs/errors.md from the modules' error catalogs, or with --check FILE
// verifies that FILE is current and that every ID is unique and in its module's range.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>
#include <span>
#include <sstream>
#include <string>

#include "agent/errors.hpp"
#include "cabling/errors.hpp"
#include "common/errors.hpp"
#include "conf/errors.hpp"
#include "ctl/errors.hpp"
#include "mad/errors.hpp"
#include "metrics/errors.hpp"
#include "names/errors.hpp"
#include "partitions/errors.hpp"
#include "perfmgr/errors.hpp"
#include "qos_policy/errors.hpp"
#include "rest/errors.hpp"
#include "routing/errors.hpp"
#include "sa/errors.hpp"
#include "sa/prefix_routes.hpp"
#include "sm/cc/errors.hpp"
#include "sm/election/errors.hpp"
#include "sm/errors.hpp"
#include "sm/health/errors.hpp"
#include "sm/mkey/errors.hpp"

namespace {

struct Module {
  const char* name;
  unsigned range;  // thousands digit
  std::span<const ibsm::ErrorInfo> rows;
};

const Module kModules[] = {
    {"MAD layer (mad/)", 1, ibsm::mad::kMadErrors},
    {"Subnet manager (sm/)", 2, ibsm::sm::kSmErrors},
    {"Node name map (names/)", 2, ibsm::names::kNamesErrors},
    {"Master/standby election (sm/election/)", 2, ibsm::sm::election::kElectionErrors},
    {"M_Key (sm/mkey/)", 2, ibsm::sm::mkey::kMkeyErrors},
    {"QoS policy file (qos_policy/)", 2, ibsm::qos_policy::kQosPolicyErrors},
    {"Congestion control (sm/cc/)", 2, ibsm::sm::cc::kCcErrors},
    {"Fabric health (sm/health/)", 2, ibsm::sm::health::kHealthErrors},
    {"Subnet Administrator (sa/)", 7, ibsm::sa::kSaErrors},
    {"Prefix routes (sa/prefix_routes)", 7, ibsm::sa::kPrefixRouteErrors},
    {"Routing (routing/)", 3, ibsm::routing::kRoutingErrors},
    {"Partitions (partitions/, ibsm-part)", 4, ibsm::partitions::kPartitionErrors},
    {"Configuration (conf/)", 5, ibsm::conf::kConfErrors},
    {"Host agent (agent/, ibsm-agent)", 6, ibsm::agent::kAgentErrors},
    {"Control socket, ibsm-ctl and events (ctl/)", 8, ibsm::ctl::kCtlErrors},
    {"Performance manager (perfmgr/)", 8, ibsm::perfmgr::kPerfmgrErrors},
    {"Prometheus endpoint (metrics/)", 8, ibsm::metrics::kMetricsErrors},
    {"UFM-compatible REST API (rest/)", 8, ibsm::rest::kRestErrors},
    {"Files (common/)", 9, ibsm::kCommonErrors},
    {"Intended topology files (cabling/)", 9, ibsm::cabling::kCablingErrors},
};

std::string render() {
  std::ostringstream out;
  out << "# Error catalog\n\n"
      << "Every error or warning an operator can see carries a stable ID (`IBSM-NNNN`) in the\n"
      << "log line or message. IDs never change meaning. This file is generated from the\n"
      << "catalog tables in the code (`<module>/errors.hpp`) by `docs/error_catalog`; a unit\n"
      << "test fails when it is stale. Regenerate with\n"
      << "`build/docs/error_catalog > docs/errors.md`.\n";
  for (const auto& m : kModules) {
    out << "\n## " << m.name << " — IBSM-" << m.range << "xxx\n";
    for (const auto& e : m.rows) {
      out << "\n### " << ibsm::format_error_id(e.id) << ": " << e.title << "\n\n"
          << e.meaning << "\n\n**What to do:** " << e.action << "\n";
    }
  }
  return out.str();
}

int check(const std::string& path) {
  int bad = 0;
  std::set<unsigned> seen;
  for (const auto& m : kModules) {
    for (const auto& e : m.rows) {
      if (!seen.insert(e.id.code).second) {
        std::cerr << ibsm::format_error_id(e.id) << " is listed twice\n";
        ++bad;
      }
      if (e.id.code / 1000 != m.range) {
        std::cerr << ibsm::format_error_id(e.id) << " is outside " << m.name << "'s range\n";
        ++bad;
      }
      if (e.title.empty() || e.meaning.empty() || e.action.empty()) {
        std::cerr << ibsm::format_error_id(e.id) << " has an empty catalog field\n";
        ++bad;
      }
    }
  }
  std::ifstream in(path);
  std::stringstream have;
  have << in.rdbuf();
  if (have.str() != render()) {
    std::cerr << path << " is stale: regenerate it with `build/docs/error_catalog > " << path
              << "`\n";
    ++bad;
  }
  return bad == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--check") return check(argv[2]);
  std::cout << render();
  return 0;
}
