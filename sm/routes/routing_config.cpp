#include "sm/routes/routing_config.hpp"

#include <algorithm>

#include "common/atomic_file.hpp"
#include "routing/errors.hpp"
#include "routing/guid_file.hpp"
#include "routing/hop_weights.hpp"

namespace ibsm::sm {
namespace {

bool in_chain(const std::vector<std::string>& chain, std::string_view engine) {
  return std::find(chain.begin(), chain.end(), engine) != chain.end();
}

// One GUID list file; an unset key reads nothing, an unreadable file one warning.
routing::GuidFile read_guid_file(const std::string& key, const std::string& path, ErrorId bad_line,
                                 bool with_ids, std::vector<Error>& warnings) {
  if (path.empty()) return {};
  Result<std::string> text = read_file(path);
  if (!text) {
    warnings.push_back({bad_line, key + ": " + text.error().message + "; file ignored"});
    return {};
  }
  routing::GuidFile file = routing::parse_guid_file(*text, path, bad_line, with_ids);
  for (Error& w : file.warnings)
    warnings.push_back(std::move(w));
  file.warnings.clear();
  return file;
}

// A text file one engine interprets. The path stays set when the file cannot be read,
// so the engine reports what is missing instead of silently routing without it.
routing::EngineConfig::Text read_text(const std::string& key, const std::string& path, ErrorId id,
                                      std::vector<Error>& warnings) {
  routing::EngineConfig::Text t;
  if (path.empty()) return t;
  t.path = path;
  Result<std::string> text = read_file(path);
  if (!text)
    warnings.push_back({id, key + ": " + text.error().message});
  else
    t.text = std::move(*text);
  return t;
}

// hop_weights_file: "<switch GUID> <port> <weight>" lines (routing/hop_weights.hpp).
std::vector<routing::EngineConfig::HopWeight> read_hop_weights(const std::string& path,
                                                               std::vector<Error>& warnings) {
  if (path.empty()) return {};
  Result<std::string> text = read_file(path);
  if (!text) {
    warnings.push_back({routing::kErrHopWeightsFile,
                        "hop_weights_file: " + text.error().message + "; file ignored"});
    return {};
  }
  routing::HopWeightsFile file = routing::parse_hop_weights(*text, path);
  for (Error& w : file.warnings)
    warnings.push_back(std::move(w));
  return std::move(file.weights);
}

}  // namespace

EngineSettings make_engine_settings(const conf::Options& options,
                                    const std::vector<std::string>& chain, unsigned max_vls) {
  EngineSettings out;
  routing::EngineConfig& c = out.config;
  c.max_vls = max_vls;
  c.lash_start_vl = options.lash_start_vl;
  c.do_mesh_analysis = options.do_mesh_analysis;
  c.nue_max_vls =
      options.nue_max_num_vls == 0 ? max_vls : std::min<unsigned>(options.nue_max_num_vls, max_vls);
  c.nue_include_switches = options.nue_include_switches;
  c.avoid_throttled_links = options.avoid_throttled_links;
  c.root_guids = read_guid_file("root_guid_file", options.root_guid_file, routing::kErrRootGuidFile,
                                false, out.warnings)
                     .guids;
  c.cn_guids = read_guid_file("cn_guid_file", options.cn_guid_file, routing::kErrGuidFile, false,
                              out.warnings)
                   .guids;
  c.io_guids = read_guid_file("io_guid_file", options.io_guid_file, routing::kErrGuidFile, false,
                              out.warnings)
                   .guids;
  c.balance_ignored_guids = read_guid_file("port_prof_ignore_file", options.port_prof_ignore_file,
                                           routing::kErrGuidFile, false, out.warnings)
                                .guids;
  c.guid_ids = read_guid_file("ids_guid_file", options.ids_guid_file, routing::kErrGuidFile, true,
                              out.warnings)
                   .ids;
  c.connect_roots = options.connect_roots;
  c.quasi_ftree_indexing = options.quasi_ftree_indexing;
  c.max_reverse_hops = options.max_reverse_hops;
  c.port_profile_switch_nodes = options.port_profile_switch_nodes;
  c.routing_order_guids = read_guid_file("guid_routing_order_file", options.guid_routing_order_file,
                                         routing::kErrGuidFile, false, out.warnings)
                              .guids;
  c.routing_order_no_scatter = options.guid_routing_order_no_scatter;
  c.port_shifting = options.port_shifting;
  c.scatter_seed = options.scatter_ports;
  c.hop_weights = read_hop_weights(options.hop_weights_file, out.warnings);
  if (in_chain(chain, "torus-2QoS"))
    c.torus_config = read_text("torus_config", options.torus_config,
                               routing::kErrRoutingFileUnreadable, out.warnings);
  if (in_chain(chain, "dor"))
    c.port_search_ordering =
        read_text("port_search_ordering_file", options.port_search_ordering_file,
                  routing::kErrRoutingFileUnreadable, out.warnings);
  if (in_chain(chain, "file")) {
    c.lfts =
        read_text("lfts_file", options.lfts_file, routing::kErrRoutingFileUnreadable, out.warnings);
    c.lid_matrix = read_text("lid_matrix_dump_file", options.lid_matrix_dump_file,
                             routing::kErrRoutingFileUnreadable, out.warnings);
  }
  return out;
}

}  // namespace ibsm::sm
