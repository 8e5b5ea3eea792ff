#include "names/node_name_map.hpp"

#include <fmt/format.h>

#include <cctype>
#include <fstream>
#include <sstream>

#include "common/display_text.hpp"
#include "names/errors.hpp"

namespace ibsm::names {
namespace {

// infiniband-diags read the file with a 256-byte line buffer.
constexpr std::size_t kMaxLine = 255;

bool is_space(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0;
}

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 99;
}

struct ParsedGuid {
  Guid value = 0;
  std::size_t length = 0;  // characters used; 0 = no number there
  bool overflow = false;
};

// strtoull(s, &end, 0) without the sign and leading blanks (the caller skipped those).
ParsedGuid parse_c_number(std::string_view s) {
  ParsedGuid g;
  unsigned base = 10;
  std::size_t i = 0;
  if (s.size() >= 3 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && digit_value(s[2]) < 16) {
    base = 16;
    i = 2;
  } else if (!s.empty() && s[0] == '0') {
    base = 8;
  }
  const std::size_t first = i;
  for (; i < s.size(); ++i) {
    const int d = digit_value(s[i]);
    if (d >= static_cast<int>(base)) break;
    const Guid next = g.value * base + static_cast<Guid>(d);
    if (g.value > (~Guid{0} - static_cast<Guid>(d)) / base) g.overflow = true;
    g.value = next;
  }
  g.length = i > first ? i : 0;
  return g;
}

// The name after the GUID: the first run of characters other than '"' and '#'
// (rdma-core: strtok(p, "\"#")).
std::string_view name_token(std::string_view rest) {
  const auto b = rest.find_first_not_of("\"#");
  if (b == std::string_view::npos) return {};
  const auto e = rest.find_first_of("\"#", b);
  return rest.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b);
}

std::string shown(std::string_view line) {
  constexpr std::size_t kShown = 60;
  std::string out;
  for (char c : line.substr(0, kShown))
    out += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  if (line.size() > kShown) out += "...";
  return out;
}

}  // namespace

Result<NodeNameMap> NodeNameMap::parse(std::string_view text, std::string_view file) {
  NodeNameMap map;
  map.source_ = std::string(file);
  std::unordered_map<Guid, std::size_t> first_line;
  std::size_t line_no = 0;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    auto bad = [&](std::string_view what) {
      return fail(kErrNodeNameMapSyntax, fmt::format("{}:{}: {}: \"{}\"; node name map not loaded",
                                                     file, line_no, what, shown(line)));
    };
    if (line.size() > kMaxLine) return bad(fmt::format("line longer than {} characters", kMaxLine));
    std::size_t p = 0;
    while (p < line.size() && is_space(line[p]))
      ++p;
    if (p == line.size() || line[p] == '#') continue;
    if (line[p] == '+' || line[p] == '-') return bad("node GUID with a sign");
    const ParsedGuid g = parse_c_number(line.substr(p));
    if (g.length == 0) return bad("no node GUID at the start of the line");
    if (g.overflow) return bad("node GUID wider than 64 bits");
    p += g.length;
    if (p < line.size() && !is_space(line[p]) && line[p] != '#')
      return bad("node GUID followed by something other than a blank or '#'");
    while (p < line.size() && is_space(line[p]))
      ++p;
    // The name as display text (common/display_text.hpp), here where it enters: a map
    // with bytes that are not UTF-8 or control characters cannot break /metrics.
    const std::string name = text::display_text(name_token(line.substr(p)));
    if (name.empty()) continue;  // a GUID without a name names nothing
    auto [it, inserted] = map.names_.try_emplace(g.value, name);
    if (inserted) {
      first_line[g.value] = line_no;
    } else if (it->second != name) {
      map.warnings_.push_back(fmt::format(
          "{}: {}:{}: node 0x{:016x} named again (\"{}\"); the name of line {} (\"{}\") stays",
          format_error_id(kErrNodeNameMapDuplicate), file, line_no, g.value, shown(name),
          first_line[g.value], it->second));
    }
  }
  return map;
}

Result<NodeNameMap> NodeNameMap::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(kErrNodeNameMapUnreadable, "cannot open node name map " + path);
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return fail(kErrNodeNameMapUnreadable, "cannot read node name map " + path);
  return parse(text.str(), path);
}

const std::string* NodeNameMap::find(Guid node_guid) const {
  auto it = names_.find(node_guid);
  return it == names_.end() ? nullptr : &it->second;
}

std::string NodeNameMap::name_of(Guid node_guid, std::string_view description) const {
  return text::display_name(find(node_guid), description);
}

std::string name_of(const NodeNameMap* map, Guid node_guid, std::string_view description) {
  return text::display_name(map != nullptr ? map->find(node_guid) : nullptr, description);
}

std::string printable_description(std::string_view description) {
  return text::display_name(nullptr, description);
}

Result<std::shared_ptr<const NodeNameMap>> NodeNames::reload(
    const std::string& node_name_map_name) {
  std::string path = node_name_map_name;
  if (path.empty()) {
    // OpenSM reads its default map only if it exists.
    path = std::string(kDefaultPath);
    std::ifstream probe(path);
    if (!probe) {
      set(NodeNameMap{});
      return snapshot();
    }
  }
  auto loaded = NodeNameMap::load(path);
  if (!loaded) return fail(loaded.error());
  auto map = std::make_shared<const NodeNameMap>(std::move(*loaded));
  std::lock_guard lock(mutex_);
  map_ = map;
  return map;
}

void NodeNames::set(NodeNameMap map) {
  auto p = std::make_shared<const NodeNameMap>(std::move(map));
  std::lock_guard lock(mutex_);
  map_ = std::move(p);
}

std::shared_ptr<const NodeNameMap> NodeNames::snapshot() const {
  std::lock_guard lock(mutex_);
  return map_;
}

std::string NodeNames::name_of(Guid node_guid, std::string_view description) const {
  return snapshot()->name_of(node_guid, description);
}

}  // namespace ibsm::names
