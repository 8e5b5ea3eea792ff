#include "cabling/topology_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <spdlog/fmt/fmt.h>

#include "cabling/errors.hpp"
#include "cabling/ibnetdiscover_reader.hpp"
#include "cabling/topo_config_reader.hpp"
#include "common/lines.hpp"
#include "common/text.hpp"

namespace ibsm::cabling {

TopologyFormat detect_topology_format(std::string_view text) {
  for (const text::Line& l : text::Lines(text)) {
    const auto line = trim(l.text);
    if (line.empty() || line.front() == '#') continue;
    return line.find(',') != std::string_view::npos ? TopologyFormat::kTopoConfigCsv
                                                    : TopologyFormat::kIbnetdiscover;
  }
  return TopologyFormat::kIbnetdiscover;
}

Result<IntendedTopology> read_intended_topology(std::string_view text, std::string_view file) {
  return detect_topology_format(text) == TopologyFormat::kTopoConfigCsv
             ? read_topo_config(text, file)
             : read_ibnetdiscover(text, file);
}

Result<IntendedTopology> load_intended_topology(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return fail(kErrTopoFileUnreadable,
                fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return fail(kErrTopoFileUnreadable, fmt::format("{}: read error", path));
  return read_intended_topology(text.str(), path);
}

}  // namespace ibsm::cabling
