#include "cabling/ibnetdiscover_reader.hpp"

#include <array>
#include <string>
#include <vector>

#include <spdlog/fmt/fmt.h>

#include "cabling/errors.hpp"
#include "cabling/line_cursor.hpp"
#include "common/lines.hpp"
#include "common/text.hpp"

namespace ibsm::cabling {
namespace {

constexpr std::array<std::string_view, 8> kSkippedKeys = {
    "vendid", "devid", "sysimgguid", "switchguid", "caguid", "rtguid", "width", "speed"};

struct PeerRef {
  std::string id;  // "S-<guid>" or an ibsim name
  int line = 0;
};

// A link line, kept until every header is read (a net file names peers declared later).
struct PendingLink {
  std::uint32_t node = 0;
  std::uint8_t port = 0;
  PeerRef peer;
  std::uint8_t peer_port = 0;
  Rate rate;
};

class Reader {
 public:
  explicit Reader(std::string_view file) : file_(file), b_(std::string(file)) {}

  Status line(std::string_view text, int n) {
    LineCursor c(text);
    if (c.done() || c.peek('#')) return {};
    if (c.peek('[')) return link_line(c, n);
    const auto w = c.word();
    if (const auto eq = w.find('='); eq != std::string_view::npos) return key_line(w, eq, n);
    if (w == "Non-Chassis" || w == "Chassis") return {};
    NodeType type = NodeType::kUnknown;
    if (w == "Switch") type = NodeType::kSwitch;
    if (w == "Ca" || w == "Hca") type = NodeType::kCa;
    if (w == "Rt") type = NodeType::kRouter;
    if (type == NodeType::kUnknown) return syntax(n, fmt::format("unknown keyword \"{}\"", w));
    return header(c, type, n);
  }

  Result<IntendedTopology> finish() {
    for (const auto& p : pending_) {
      auto peer = resolve(p.peer);
      if (!peer) return fail(peer.error());
      if (auto s = b_.link({p.node, p.port}, {*peer, p.peer_port}, p.rate, LinkState::kActive,
                           p.peer.line);
          !s)
        return fail(s.error());
    }
    return std::move(b_).take();
  }

 private:
  Unexpected<Error> syntax(int n, std::string what) const {
    return fail(kErrTopoSyntax, fmt::format("{}: {}", where(file_, n), what));
  }

  Status key_line(std::string_view w, std::size_t eq, int n) {
    const auto key = w.substr(0, eq);
    for (auto k : kSkippedKeys) {
      if (key != k) continue;
      if (key == "switchguid" || key == "caguid" || key == "rtguid") {
        auto value = w.substr(eq + 1);
        value = value.substr(0, value.find('('));
        const auto guid = parse_hex_guid(value);
        if (!guid) return syntax(n, fmt::format("bad GUID \"{}\"", value));
        next_guid_ = *guid;
      }
      return {};
    }
    return syntax(n, fmt::format("unknown key \"{}\"", key));
  }

  // "S-<16 hex>" (also H-, R-): the GUID and the type the prefix names.
  static std::optional<std::pair<std::uint64_t, NodeType>> guid_id(std::string_view id) {
    if (id.size() < 3 || id[1] != '-') return std::nullopt;
    NodeType t = id[0] == 'S'   ? NodeType::kSwitch
                 : id[0] == 'H' ? NodeType::kCa
                 : id[0] == 'R' ? NodeType::kRouter
                                : NodeType::kUnknown;
    if (t == NodeType::kUnknown) return std::nullopt;
    const auto hex = id.substr(2);
    if (hex.size() != 16) return std::nullopt;  // a name like "S-1" stays a name
    const auto guid = parse_hex_guid(hex);
    if (!guid) return std::nullopt;
    return std::pair{*guid, t};
  }

  Status header(LineCursor& c, NodeType type, int n) {
    const auto count = parse_decimal(c.word(), 255);
    if (!count || *count == 0) return syntax(n, "a node header needs its port count (1-255)");
    const auto id = c.quoted();
    if (!id) return syntax(n, "a node header needs a quoted node id");
    std::uint64_t guid = std::exchange(next_guid_, 0);
    std::string name(*id);
    if (const auto g = guid_id(*id)) {
      guid = g->first;
      name.clear();
      if (c.done() || !c.eat('#')) return node(guid, name, type, *count, n);
      if (const auto desc = c.quoted()) name = std::string(*desc);
    }
    return node(guid, name, type, *count, n);  // ibsim's options after the id: ignored
  }

  Status node(std::uint64_t guid, const std::string& name, NodeType type, unsigned count, int n) {
    auto index = b_.node(guid, name, type, static_cast<std::uint8_t>(count), n);
    if (!index) return fail(index.error());
    current_ = *index;
    return {};
  }

  Result<std::uint8_t> port(LineCursor& c, int n) {
    const auto text = c.until(']');
    if (!text) return syntax(n, "a port number needs its ']'");
    const auto v = parse_decimal(trim(*text), 99999);
    if (!v) return syntax(n, fmt::format("bad port number \"{}\"", *text));
    if (*v == 0 || *v > 254)
      return fail(kErrTopoBadPort,
                  fmt::format("{}: port {} is impossible (1-254)", where(file_, n), *v));
    return static_cast<std::uint8_t>(*v);
  }

  // "(portguid)" and "[ext N]" after a port: read and dropped.
  Status decorations(LineCursor& c, int n) {
    for (;;) {
      if (c.eat('(')) {
        const auto g = c.until(')');
        if (!g || !parse_hex_guid(*g)) return syntax(n, "bad port GUID in ( )");
      } else if (c.rest().starts_with("[ext")) {
        if (!c.until(']')) return syntax(n, "an [ext N] needs its ']'");
      } else {
        return {};
      }
    }
  }

  Status link_line(LineCursor& c, int n) {
    if (!current_) return syntax(n, "a link line before any Switch/Ca header");
    c.eat('[');
    auto local = port(c, n);
    if (!local) return fail(local.error());
    const IntendedNode& owner = b_.topology().nodes[*current_];
    if (owner.num_ports != 0 && *local > owner.num_ports)
      return fail(kErrTopoBadPort, fmt::format("{}: port {} of a node with {} ports",
                                               where(file_, n), *local, owner.num_ports));
    if (auto s = decorations(c, n); !s) return s;
    const auto peer = c.quoted();
    if (!peer) return syntax(n, "a link needs its peer in quotes");
    if (!c.eat('[')) return syntax(n, "a link needs the peer's [port]");
    auto remote = port(c, n);
    if (!remote) return fail(remote.error());
    if (auto s = decorations(c, n); !s) return s;
    Rate rate;
    while (!c.done()) {
      if (c.eat('#')) {
        auto r = comment_rate(c.rest(), n);
        if (!r) return fail(r.error());
        rate = *r;
        break;
      }
      const auto opt = c.word();
      if (opt.find('=') == std::string_view::npos)  // ibsim's w=, s=, e= options
        return syntax(n, fmt::format("unknown token \"{}\" after the link", opt));
    }
    pending_.push_back({*current_, *local, {std::string(*peer), n}, *remote, rate});
    return {};
  }

  // The comment's last word, when it is a rate ("4xSDR").
  Result<Rate> comment_rate(std::string_view comment, int n) const {
    comment = trim(comment);
    const auto last = comment.substr(comment.find_last_of(" \t") + 1);
    if (!looks_like_rate(last)) return Rate{};
    const auto r = parse_rate(last);
    if (!r) return syntax(n, fmt::format("unknown width/speed \"{}\"", last));
    return *r;
  }

  Result<std::uint32_t> resolve(const PeerRef& p) {
    if (const auto g = guid_id(p.id)) return b_.node(g->first, "", g->second, 0, p.line);
    if (const auto* index = b_.find_name(p.id)) return *index;
    return fail(kErrTopoUnknownNode, fmt::format("{}: link to \"{}\", which no header declares",
                                                 where(file_, p.line), p.id));
  }

  std::string_view file_;
  TopologyBuilder b_;
  std::optional<std::uint32_t> current_;
  std::uint64_t next_guid_ = 0;
  std::vector<PendingLink> pending_;
};

}  // namespace

Result<IntendedTopology> read_ibnetdiscover(std::string_view text, std::string_view file) {
  Reader r(file);
  for (const text::Line& l : text::Lines(text))
    if (auto s = r.line(l.text, static_cast<int>(l.number)); !s) return fail(s.error());
  return r.finish();
}

}  // namespace ibsm::cabling
