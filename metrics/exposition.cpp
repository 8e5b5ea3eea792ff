#include "metrics/exposition.hpp"

#include <spdlog/fmt/fmt.h>

#include <array>
#include <cctype>
#include <charconv>
#include <map>
#include <utility>

#include "cabling/deviation.hpp"
#include "common/escape.hpp"
#include "mad/attr/port_speeds.hpp"

namespace ibsm::metrics {

namespace {

using ops::OpsSnapshot;

class Writer {
 public:
  void family(std::string_view name, std::string_view type, std::string_view help) {
    out_ += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
  }
  void sample(std::string_view name, std::string_view labels, double v) {
    head(name, labels);
    out_ += fmt::format("{}\n", v);
  }
  void sample(std::string_view name, std::string_view labels, std::uint64_t v) {
    head(name, labels);
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out_.append(buf, r.ptr);
    out_ += '\n';
  }
  void reserve(std::size_t n) { out_.reserve(n); }
  std::string take() { return std::move(out_); }

 private:
  void head(std::string_view name, std::string_view labels) {
    out_ += name;
    if (!labels.empty()) {
      out_ += '{';
      out_ += labels;
      out_ += '}';
    }
    out_ += ' ';
  }
  std::string out_;
};

std::string lower(std::string_view s) {
  std::string r(s);
  for (char& c : r)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

std::string port_labels(const perfmgr::PortCounterRow& r) {
  return fmt::format(
      "component=\"{}\",local_guid=\"0x{:016x}\",local_name=\"{}\",local_port=\"{}\","
      "remote_guid=\"{}\",remote_name=\"{}\",remote_port=\"{}\"",
      r.is_switch ? "switch" : "ca", r.guid, escape_label(r.name), r.port,
      r.remote_valid ? fmt::format("0x{:016x}", r.remote_guid) : "",
      r.remote_valid ? escape_label(r.remote_name) : "",
      r.remote_valid ? std::to_string(r.remote_port) : "");
}

// Port-counter families: the error counters, the data counters, then speed and width.
constexpr std::size_t kPortFamilies = perfmgr::kErrCount + perfmgr::kDataCount + 2;

void port_family(Writer& w, const perfmgr::CounterSnapshot& c,
                 const std::vector<std::string>& labels, std::size_t f) {
  std::size_t bytes = 0;
  if (!labels.empty()) bytes = labels.size() * (labels[0].size() + 64);
  w.reserve(bytes);
  if (f < perfmgr::kErrCount) {
    const std::string name = "infiniband_" + lower(perfmgr::kErrNames[f].iba) + "_total";
    w.family(
        name, "counter",
        fmt::format("{} (IBA PortCounters) accumulated by the PerfMgr", perfmgr::kErrNames[f].iba));
    for (std::size_t p = 0; p < c.ports.size(); ++p)
      w.sample(name, labels[p], c.ports[p].err.v[f]);
    return;
  }
  f -= perfmgr::kErrCount;
  if (f < perfmgr::kDataCount) {
    const std::string name = "infiniband_" + lower(perfmgr::kDataNames[f].iba) + "_total";
    w.family(name, "counter",
             fmt::format("{} (IBA units{}) accumulated by the PerfMgr", perfmgr::kDataNames[f].iba,
                         f < 2 ? ": octets divided by 4" : ": packets"));
    for (std::size_t p = 0; p < c.ports.size(); ++p)
      w.sample(name, labels[p], c.ports[p].data.v[f]);
    return;
  }
  if (f == perfmgr::kDataCount) {
    w.family("infiniband_speed", "gauge",
             "Link speed per lane in Gb/s (PortInfo LinkSpeed(Ext)Active)");
    for (std::size_t p = 0; p < c.ports.size(); ++p)
      if (const double g =
              perfmgr::lane_gbps(c.ports[p].link_speed_active, c.ports[p].link_speed_ext_active))
        w.sample("infiniband_speed", labels[p], g);
    return;
  }
  w.family("infiniband_width", "gauge", "Lanes of the link (PortInfo LinkWidthActive)");
  for (std::size_t p = 0; p < c.ports.size(); ++p)
    if (const unsigned l = mad::active_lanes(c.ports[p].link_width_active))
      w.sample("infiniband_width", labels[p], std::uint64_t{l});
}

// The cabling check of the last heavy sweep: every kind always present (0 without a
// topology file, or before the first check).
void cabling_metrics(Writer& w, const OpsSnapshot& s) {
  constexpr std::size_t kKinds = 8;
  std::array<std::uint64_t, kKinds> by_kind{};
  std::uint64_t degraded = 0;
  if (s.cabling) {
    for (const auto& d : s.cabling->deviations)
      if (static_cast<std::size_t>(d.kind) < kKinds) ++by_kind[static_cast<std::size_t>(d.kind)];
    degraded = s.cabling->degraded.size();
  }
  w.family("ibsm_topology_deviations", "gauge",
           "Deviations of the cabling from topo_config_file at the last heavy sweep, by kind");
  for (std::size_t k = 0; k < kKinds; ++k)
    w.sample("ibsm_topology_deviations",
             fmt::format("kind=\"{}\"",
                         cabling::deviation_kind_name(static_cast<cabling::DeviationKind>(k))),
             by_kind[k]);
  w.family("ibsm_degraded_links", "gauge",
           "Links active below the best width or speed both ends support");
  w.sample("ibsm_degraded_links", "", degraded);
}

// The health policy's words (sm/health/health_types.hpp: condition_name, action_name;
// metrics may not include sm/, and metrics_unit checks the two lists agree). Every
// condition with every action that acts or reports is always present (0 when no port
// has it), as ibsm_topology_deviations has every kind; "ignore" and any word not listed
// here appear only while a port has them.
constexpr std::array<std::string_view, 8> kHealthConditions = {
    "reboot", "unresponsive", "noisy", "seterr", "flapping", "illegal", "manual", "error_rate"};
constexpr std::array<std::string_view, 4> kHealthActions = {"report", "isolate", "no_discover",
                                                            "disable"};

void health_metrics(Writer& w, const OpsSnapshot& s) {
  std::map<std::pair<std::string, std::string>, std::uint64_t> by_pair;
  for (const auto c : kHealthConditions)
    for (const auto a : kHealthActions)
      by_pair[{std::string(c), std::string(a)}] = 0;
  const bool enabled = !s.health || s.health->enabled;  // no status: checks on, none found
  if (s.health)
    for (const auto& p : s.health->ports)
      ++by_pair[{p.condition, p.action}];
  w.family("ibsm_health_checks_enabled", "gauge",
           "1 when the health policy judges the ports (hm_unhealthy_ports_checks)");
  w.sample("ibsm_health_checks_enabled", "", std::uint64_t{enabled ? 1u : 0u});
  w.family("ibsm_unhealthy_ports", "gauge",
           "Ports the health policy judges unhealthy, by condition and the action taken");
  for (const auto& [key, n] : by_pair)
    w.sample("ibsm_unhealthy_ports",
             fmt::format("condition=\"{}\",action=\"{}\"", escape_label(key.first),
                         escape_label(key.second)),
             n);
}

void sm_metrics(Writer& w, const OpsSnapshot& s) {
  w.family("ibsm_info", "gauge", "The SM's version and port (value 1)");
  w.sample(
      "ibsm_info",
      fmt::format("version=\"{}\",port_guid=\"0x{:016x}\"", escape_label(s.version), s.port_guid),
      std::uint64_t{1});
  w.family("ibsm_sm_state", "gauge", "SM state (IBA 14.4.1): 1 for the state the SM is in");
  for (const auto st : {mad::SmState::kNotActive, mad::SmState::kDiscovering,
                        mad::SmState::kStandby, mad::SmState::kMaster})
    w.sample("ibsm_sm_state", fmt::format("state=\"{}\"", lower(mad::sm_state_name(st))),
             std::uint64_t{s.state == st ? 1u : 0u});
  w.family("ibsm_sm_priority", "gauge", "sm_priority in force");
  w.sample("ibsm_sm_priority", "", std::uint64_t{s.priority});
  w.family("ibsm_sm_lid", "gauge", "LID of the master SM");
  w.sample("ibsm_sm_lid", "", std::uint64_t{s.sm_lid});
  w.family("ibsm_start_time_seconds", "gauge", "When the SM started, seconds since the epoch");
  w.sample("ibsm_start_time_seconds", "",
           std::chrono::duration<double>(s.started.time_since_epoch()).count());

  w.family("ibsm_sweep_duration_seconds", "histogram", "Duration of the SM's sweeps, by kind");
  for (std::size_t k = 0; k < s.sweep_durations.size(); ++k) {
    const auto& h = s.sweep_durations[k];
    const std::string kind(ops::sweep_kind_name(static_cast<ops::SweepKind>(k)));
    for (std::size_t b = 0; b < h.kBounds.size(); ++b)
      w.sample("ibsm_sweep_duration_seconds_bucket",
               fmt::format("kind=\"{}\",le=\"{}\"", kind, h.kBounds[b]), h.cumulative[b]);
    w.sample("ibsm_sweep_duration_seconds_bucket", fmt::format("kind=\"{}\",le=\"+Inf\"", kind),
             h.count);
    w.sample("ibsm_sweep_duration_seconds_sum", fmt::format("kind=\"{}\"", kind), h.sum);
    w.sample("ibsm_sweep_duration_seconds_count", fmt::format("kind=\"{}\"", kind), h.count);
  }
  w.family("ibsm_last_subnet_up_time_seconds", "gauge",
           "When a heavy sweep last brought the subnet up, seconds since the epoch (0: never)");
  w.sample("ibsm_last_subnet_up_time_seconds", "",
           s.last_subnet_up
               ? std::chrono::duration<double>(s.last_subnet_up->time_since_epoch()).count()
               : 0.0);

  const struct {
    const char* what;
    std::uint64_t smp, sa;
  } mads[] = {{"sent", s.smp.sent, s.sa.answered},
              {"received", s.smp.received, s.sa.received},
              {"timed_out", s.smp.timeouts, 0},
              {"retried", s.smp.retries, 0}};
  for (const auto& m : mads) {
    const std::string name = fmt::format("ibsm_mads_{}_total", m.what);
    w.family(name, "counter", fmt::format("MADs {} by the SM, by management class", m.what));
    w.sample(name, "class=\"subn_mgt\"", m.smp);
    w.sample(name, "class=\"subn_adm\"", m.sa);
    if (s.perf_counters) {
      const auto& p = *s.perf_counters;
      const std::uint64_t v = std::string_view(m.what) == "sent"        ? p.sent
                              : std::string_view(m.what) == "received"  ? p.received
                              : std::string_view(m.what) == "timed_out" ? p.timeouts
                                                                        : p.retries;
      w.sample(name, "class=\"perf_mgt\"", v);
    }
  }
  w.family("ibsm_sa_requests_total", "counter", "SA requests received, by attribute ID (low byte)");
  for (std::size_t a = 0; a < s.sa.by_attr.size(); ++a)
    if (s.sa.by_attr[a])
      w.sample("ibsm_sa_requests_total", fmt::format("attribute=\"0x{:02x}\"", a), s.sa.by_attr[a]);
  w.family("ibsm_sa_error_responses_total", "counter", "SA responses with a non-zero status");
  w.sample("ibsm_sa_error_responses_total", "", s.sa.errors);
  w.family("ibsm_sa_requests_refused_total", "counter",
           "SA requests refused at a per-port or total bound (ERR_NO_RESOURCES, IBSM-7007), by "
           "resource");
  const std::pair<const char*, std::uint64_t> refused[] = {
      {"service_records", s.sa_refused.service_records},
      {"inform_infos", s.sa_refused.inform_infos},
      {"mcast_memberships", s.sa_refused.mcast_memberships},
      {"mcast_groups", s.sa_refused.mcast_groups}};
  for (const auto& [resource, n] : refused)
    w.sample("ibsm_sa_requests_refused_total", fmt::format("resource=\"{}\"", resource), n);
  w.family("ibsm_mad_answers_refused_total", "counter",
           "Answers dropped because they matched no request of the SM's (TID, source, "
           "attribute or modifier differ: IBSM-1016, IBSM-8512), by management class");
  w.sample("ibsm_mad_answers_refused_total", "class=\"subn_mgt\"", s.smp.mismatched);
  if (s.perfmgr_enabled)
    w.sample("ibsm_mad_answers_refused_total", "class=\"perf_mgt\"", s.perf_answers_refused);

  if (s.fabric) {
    std::size_t switches = 0;
    std::uint64_t lids = 0;
    std::map<std::string, std::uint64_t> by_state;
    for (const auto& n : s.fabric->nodes) {
      if (n.is_switch()) ++switches;
      for (const auto& p : n.ports) {
        if (!p.present) continue;
        if (n.is_switch() ? p.num == 0 : p.num != 0) lids += p.lid ? (1ull << p.lmc) : 0;
        if (n.is_switch() && p.num == 0) continue;
        ++by_state[lower(mad::port_state_name(p.info.port_state))];
      }
    }
    w.family("ibsm_nodes", "gauge", "Nodes in the fabric of the last heavy sweep");
    w.sample("ibsm_nodes", "", std::uint64_t{s.fabric->nodes.size()});
    w.family("ibsm_switches", "gauge", "Switches in the fabric of the last heavy sweep");
    w.sample("ibsm_switches", "", std::uint64_t{switches});
    w.family("ibsm_ports", "gauge", "Physical ports by PortState");
    for (const auto& [st, n] : by_state)
      w.sample("ibsm_ports", fmt::format("state=\"{}\"", escape_label(st)), n);
    w.family("ibsm_lids_in_use", "gauge", "Unicast LIDs assigned (every LID of an LMC range)");
    w.sample("ibsm_lids_in_use", "", lids);
  }

  w.family("ibsm_routing_engine_info", "gauge",
           "The routing engine whose tables are in force (value 1)");
  if (!s.routing.engine.empty())
    w.sample("ibsm_routing_engine_info",
             fmt::format("engine=\"{}\",fallback=\"{}\"", escape_label(s.routing.engine),
                         s.routing.fallback ? "true" : "false"),
             std::uint64_t{1});
  if (s.routing.graded) {
    w.family("ibsm_routing_unreachable_pairs", "gauge",
             "Source port, destination LID pairs with no route");
    w.sample("ibsm_routing_unreachable_pairs", "", s.routing.unreachable);
    w.family("ibsm_routing_max_efi", "gauge", "Edge forwarding index of the busiest channel");
    w.sample("ibsm_routing_max_efi", "", s.routing.max_efi);
    w.family("ibsm_routing_mean_efi", "gauge", "Mean edge forwarding index");
    w.sample("ibsm_routing_mean_efi", "", s.routing.mean_efi);
  }
  std::uint64_t members = 0;
  for (const auto& g : s.mcast_groups)
    members += g.members;
  w.family("ibsm_multicast_groups", "gauge", "Multicast groups");
  w.sample("ibsm_multicast_groups", "", std::uint64_t{s.mcast_groups.size()});
  w.family("ibsm_multicast_members", "gauge", "Members of all multicast groups");
  w.sample("ibsm_multicast_members", "", members);

  cabling_metrics(w, s);
  health_metrics(w, s);

  w.family("ibsm_perfmgr_enabled", "gauge", "1 when the PerfMgr runs");
  w.sample("ibsm_perfmgr_enabled", "", std::uint64_t{s.perfmgr_enabled ? 1u : 0u});
  if (s.perf_counters) {
    w.family("ibsm_perfmgr_sweeps_total", "counter", "PerfMgr sweeps finished");
    w.sample("ibsm_perfmgr_sweeps_total", "", s.perf_counters->sweeps);
    w.family("ibsm_perfmgr_last_sweep_duration_seconds", "gauge",
             "Duration of the last PerfMgr sweep");
    w.sample("ibsm_perfmgr_last_sweep_duration_seconds", "", s.perf_counters->last_sweep_seconds);
    w.family("ibsm_perfmgr_queries_outstanding", "gauge",
             "PerfMgt queries on the wire when the last PerfMgr sweep ended");
    w.sample("ibsm_perfmgr_queries_outstanding", "", s.perf_counters->outstanding);
  }
}

}  // namespace

std::string escape_label(std::string_view v) {
  return text::prometheus_label(v);  // the one Prometheus escaper (common/escape.hpp)
}

Exposition::Exposition(std::shared_ptr<const OpsSnapshot> s) : s_(std::move(s)) {}

std::size_t Exposition::parts() const {
  return 1 + (s_->perf_counters ? kPortFamilies : 0);
}

std::string Exposition::part(std::size_t i) {
  Writer w;
  if (i == 0) {
    sm_metrics(w, *s_);
    return w.take();
  }
  const perfmgr::CounterSnapshot& c = *s_->perf_counters;
  if (labels_.size() != c.ports.size()) {
    labels_.reserve(c.ports.size());
    for (const auto& r : c.ports)
      labels_.push_back(port_labels(r));
  }
  port_family(w, c, labels_, i - 1);
  return w.take();
}

std::string render(const OpsSnapshot& s) {
  // A non-owning pointer: the snapshot outlives this call.
  Exposition e(std::shared_ptr<const OpsSnapshot>(std::shared_ptr<const OpsSnapshot>{}, &s));
  std::string out;
  for (std::size_t i = 0; i < e.parts(); ++i)
    out += e.part(i);
  return out;
}

}  // namespace ibsm::metrics
