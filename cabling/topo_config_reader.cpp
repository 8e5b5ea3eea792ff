#include "cabling/topo_config_reader.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include <spdlog/fmt/fmt.h>

#include "cabling/errors.hpp"
#include "cabling/line_cursor.hpp"
#include "common/lines.hpp"
#include "common/text.hpp"

namespace ibsm::cabling {
namespace {

struct Word {
  std::string_view text;
  NodeType type;
};
constexpr std::array<Word, 6> kDeviceTypes = {{{"SW", NodeType::kSwitch},
                                               {"SWITCH", NodeType::kSwitch},
                                               {"CA", NodeType::kCa},
                                               {"HCA", NodeType::kCa},
                                               {"RTR", NodeType::kRouter},
                                               {"ROUTER", NodeType::kRouter}}};

std::vector<std::string_view> split(std::string_view line) {
  std::vector<std::string_view> fields;
  for (;;) {
    const auto comma = line.find(',');
    fields.push_back(trim(line.substr(0, comma)));
    if (comma == std::string_view::npos) return fields;
    line.remove_prefix(comma + 1);
  }
}

class CsvReader {
 public:
  explicit CsvReader(std::string_view file) : file_(file), b_(std::string(file)) {}

  Status line(std::string_view text, int n) {
    text = trim(text.substr(0, text.find('#')));
    if (text.empty()) return {};
    const auto f = split(text);
    if (iequal(f[0], "SrcGUID")) return {};
    if (f.size() < 4 || f.size() > 6)
      return syntax(n, fmt::format("{} fields; a line is SrcGUID,SrcPort,DstGUID,DstPort"
                                   "[,DeviceType[,LinkState]]",
                                   f.size()));
    NodeType dst_type = NodeType::kUnknown;
    if (f.size() >= 5 && !f[4].empty()) {
      const auto* t = std::find_if(kDeviceTypes.begin(), kDeviceTypes.end(),
                                   [&](const Word& w) { return iequal(w.text, f[4]); });
      if (t == kDeviceTypes.end()) return syntax(n, fmt::format("unknown DeviceType \"{}\"", f[4]));
      dst_type = t->type;
    }
    LinkState state = LinkState::kActive;
    if (f.size() == 6 && !f[5].empty()) {
      if (iequal(f[5], "NO_DISCOVER"))
        state = LinkState::kNoDiscover;
      else if (iequal(f[5], "DISABLED") || iequal(f[5], "DISABLE"))
        state = LinkState::kDisabled;
      else if (!iequal(f[5], "ACTIVE"))
        return syntax(n, fmt::format("unknown LinkState \"{}\"", f[5]));
    }
    auto src = end(f[0], f[1], NodeType::kUnknown, n);
    if (!src) return fail(src.error());
    auto dst = end(f[2], f[3], dst_type, n);
    if (!dst) return fail(dst.error());
    return b_.link(*src, *dst, {}, state, n);
  }

  IntendedTopology take() && { return std::move(b_).take(); }

 private:
  Unexpected<Error> syntax(int n, std::string what) const {
    return fail(kErrTopoSyntax, fmt::format("{}: {}", where(file_, n), what));
  }

  Result<IntendedEnd> end(std::string_view guid_text, std::string_view port_text, NodeType type,
                          int n) {
    const auto guid = guid_text.starts_with("0x") || guid_text.starts_with("0X")
                          ? parse_hex_guid(guid_text)
                          : std::nullopt;
    if (!guid || *guid == 0)
      return syntax(n, fmt::format("bad GUID \"{}\" (0x and 1-16 hex digits)", guid_text));
    const auto port = parse_decimal(port_text, 99999);
    if (!port) return syntax(n, fmt::format("bad port number \"{}\"", port_text));
    if (*port == 0 || *port > 254)
      return fail(kErrTopoBadPort,
                  fmt::format("{}: port {} is impossible (1-254)", where(file_, n), *port));
    auto node = b_.node(*guid, "", type, 0, n);
    if (!node) return fail(node.error());
    return IntendedEnd{*node, static_cast<std::uint8_t>(*port)};
  }

  std::string_view file_;
  TopologyBuilder b_;
};

}  // namespace

Result<IntendedTopology> read_topo_config(std::string_view text, std::string_view file) {
  CsvReader r(file);
  for (const text::Line& l : text::Lines(text))
    if (auto s = r.line(l.text, static_cast<int>(l.number)); !s) return fail(s.error());
  return std::move(r).take();
}

}  // namespace ibsm::cabling
