#include "partitions/parser.hpp"

#include <algorithm>
#include <cctype>

#include "partitions/c_number.hpp"
#include "partitions/errors.hpp"
#include "partitions/units.hpp"

namespace ibsm::partitions {
namespace {

class Analyzer {
 public:
  explicit Analyzer(const SyntaxTree& t) : t_(t) {}

  ParseResult run() {
    ParseResult r;
    r.diagnostics = t_.diagnostics;
    diags_ = &r.diagnostics;
    for (const auto& s : t_.statements) {
      if (auto st = statement(s)) r.config.statements.push_back(std::move(*st));
    }
    std::stable_sort(r.diagnostics.begin(), r.diagnostics.end(),
                     [](const Diagnostic& a, const Diagnostic& b) {
                       return std::pair(a.line, a.column) < std::pair(b.line, b.column);
                     });
    return r;
  }

 private:
  std::string_view sv(Span s) const { return t_.slice(s); }

  SourceLoc loc(std::size_t offset) const {
    auto [l, c] = t_.position(offset);
    return {l, c};
  }

  void add(Severity sev, ErrorId id, std::size_t at, std::string msg, std::string expected) {
    auto [l, c] = t_.position(at);
    diags_->push_back({sev, id, l, c, std::move(msg), std::move(expected)});
  }
  void warn(ErrorId id, std::size_t at, std::string msg, std::string expected = "") {
    add(Severity::kWarning, id, at, std::move(msg), std::move(expected));
  }
  void error(ErrorId id, std::size_t at, std::string msg, std::string expected) {
    add(Severity::kError, id, at, std::move(msg), std::move(expected));
  }

  static std::string crlf_hint(std::string_view word) {
    return word.find('\r') != std::string_view::npos
               ? " (the file has Windows line endings; OpenSM does not accept them either)"
               : "";
  }

  // One group flag (header or mgid line). Returns false if the word is no group flag.
  template <class Sink>
  bool group_flag(const Field& f, Sink&& sink) {
    const auto which = match_group_flag(sv(f.key));
    if (!which) return false;
    const std::string name(group_flag_name(*which));
    const std::size_t at = f.has_value ? f.value.begin : f.key.begin;
    if (!f.has_value && *which != GroupFlag::kQKey && *which != GroupFlag::kTClass) {
      warn(kBadFlagValue, at, "flag '" + name + "' needs a value; skipped",
           "'" + name + "=<value>'");
      return true;
    }
    const std::string_view v = sv(f.value);
    switch (*which) {
      case GroupFlag::kMtu: {
        auto m = parse_mtu(v);
        if (!m) {
          warn(kBadFlagValue, at, "mtu '" + std::string(v) + "' is not valid; skipped",
               "an MTU enum 1..5 or a size 256, 512, 1024, 2048, 4096");
        } else {
          if (!m->opensm_reads_same)
            warn(kOpenSmReadsDifferently, at,
                 "OpenSM reads 'mtu=" + std::string(v) + "' as enum " +
                     std::to_string(c_number_prefix(v)) + ", not " +
                     std::to_string(mtu_bytes(m->value)) + " bytes");
          sink.mtu(m->value);
        }
        break;
      }
      case GroupFlag::kRate: {
        auto r = parse_rate(v);
        if (!r) {
          warn(kBadFlagValue, at, "rate '" + std::string(v) + "' is not valid; skipped",
               "a rate enum 2..24 or a speed such as 2.5Gb, 10Gb, 100Gb");
        } else {
          if (!r->opensm_reads_same)
            warn(kOpenSmReadsDifferently, at,
                 "OpenSM reads 'rate=" + std::string(v) + "' as enum " +
                     std::to_string(c_number_prefix(v)) + ", not " + rate_text(r->value));
          sink.rate(r->value);
        }
        break;
      }
      case GroupFlag::kScope: {
        const std::uint64_t s = c_number_prefix(v);
        if (s == 0 || s > 15)
          warn(kBadFlagValue, at, "scope '" + std::string(v) + "' is not valid; skipped", "1..15");
        else
          sink.scope(static_cast<std::uint8_t>(s));
        break;
      }
      case GroupFlag::kQKey:
      case GroupFlag::kTClass: {
        if (!f.has_value) {
          warn(kBadFlagValue, at, "flag '" + name + "' needs a value; ignored",
               "'" + name + "=<value>'");
          break;
        }
        const std::uint64_t n = c_number_prefix(v);
        if (n == 0)
          warn(kBadFlagValue, at, name + " '" + std::string(v) + "' read as 0",
               "a non-zero number");
        if (*which == GroupFlag::kQKey)
          sink.qkey(static_cast<std::uint32_t>(n));
        else
          sink.tclass(static_cast<std::uint8_t>(n));
        break;
      }
      case GroupFlag::kSl:
      case GroupFlag::kFlowLabel: {
        const std::uint64_t limit = *which == GroupFlag::kSl ? 15 : 0xFFFFF;
        auto n = parse_c_number_exact(v);
        if (v.empty() || !n || *n > limit)
          warn(kBadFlagValue, at, name + " '" + std::string(v) + "' is not valid; skipped",
               "0.." + std::to_string(limit));
        else if (*which == GroupFlag::kSl)
          sink.sl(static_cast<std::uint8_t>(*n));
        else
          sink.flow_label(static_cast<std::uint32_t>(*n));
        break;
      }
    }
    return true;
  }

  struct HeaderSink {
    GroupFlags& g;
    void mtu(std::uint8_t v) { g.mtu = v; }
    void rate(std::uint8_t v) { g.rate = v; }
    void scope(std::uint8_t v) {
      g.scope_mask = static_cast<std::uint16_t>(g.scope_mask | (1u << v));
    }
    void qkey(std::uint32_t v) { g.qkey = v; }
    void tclass(std::uint8_t v) { g.tclass = v; }
    void sl(std::uint8_t v) { g.sl = v; }
    void flow_label(std::uint32_t v) { g.flow_label = v; }
  };
  struct LineSink {
    GroupOverrides& o;
    void mtu(std::uint8_t v) { o.mtu = v; }
    void rate(std::uint8_t v) { o.rate = v; }
    void scope(std::uint8_t v) {
      o.scope_mask = static_cast<std::uint16_t>(o.scope_mask | (1u << v));
    }
    void qkey(std::uint32_t v) { o.qkey = v; }
    void tclass(std::uint8_t v) { o.tclass = v; }
    void sl(std::uint8_t v) { o.sl = v; }
    void flow_label(std::uint32_t v) { o.flow_label = v; }
  };

  bool definition(const Field& f, Statement& st) {
    std::string_view name = sv(f.key);
    std::optional<Span> id;
    if (f.has_value) id = f.value;
    if (!id && !name.empty() && std::isdigit(static_cast<unsigned char>(name.front()))) {
      id = f.key;
      name = {};
    }
    st.name = std::string(name);
    if (!id) return true;
    auto n = parse_c_number_exact(sv(*id));
    if (!n) {
      error(kBadPKey, id->begin, "bad P_Key '" + std::string(sv(*id)) + "'" + crlf_hint(sv(*id)),
            "a number such as 0x7fff after '='");
      return false;
    }
    st.pkey = static_cast<std::uint16_t>(*n & 0x7fff);  // 16-bit cast, then 0x8000 stripped
    return true;
  }

  void header_flag(const Field& f, Statement& st) {
    if (group_flag(f, HeaderSink{st.flags})) return;
    const std::string_view k = sv(f.key);
    const auto pf = match_partition_flag(k);
    if (!pf) {
      warn(kUnknownFlag, f.key.begin, "unknown partition flag '" + std::string(k) + "' ignored",
           "ipoib, mtu, rate, sl, scope, Q_Key, TClass, FlowLabel, defmember or indx0");
      return;
    }
    switch (*pf) {
      case PartitionFlag::kIpoib:
        st.ipoib = true;
        break;
      case PartitionFlag::kIndx0:
        st.indx0 = true;
        break;
      case PartitionFlag::kDefmember: {
        const auto m = f.has_value ? match_membership(sv(f.value)) : std::nullopt;
        if (!m) {
          warn(kBadFlagValue, f.has_value ? f.value.begin : f.key.begin,
               "defmember needs full, limited or both; skipped", "defmember=full|limited|both");
          break;
        }
        if (sv(f.value).empty())
          warn(kBadFlagValue, f.value.begin, "empty defmember= read as full (as OpenSM does)",
               "defmember=full|limited|both");
        st.defmember = *m;
        break;
      }
    }
  }

  bool member(const Field& f, Statement& st) {
    const std::string_view name = sv(f.key);
    const MemberKind kind = match_member_keyword(name);
    if (kind == MemberKind::kNone) return true;  // checked before the membership word
    Member m;
    m.kind = kind;
    m.loc = loc(f.text.begin);
    if (f.has_value) {
      const std::string_view word = sv(f.value);
      const auto ms = match_membership(word);
      if (!ms)
        warn(kUnknownMembership, f.value.begin,
             "membership '" + std::string(word) + "' not recognised; limited assumed",
             "full, limited or both");
      else if (word.empty())
        warn(kUnknownMembership, f.value.begin, "empty membership read as full (as OpenSM does)",
             "full, limited or both");
      m.membership = ms.value_or(Membership::kLimited);
    }
    if (kind == MemberKind::kGuid) {
      auto g = parse_c_number_exact(name);
      if (!g || *g == 0) {
        error(kBadPortGuid, f.key.begin,
              "bad port GUID '" + std::string(name) + "'" + crlf_hint(name),
              "a port GUID such as 0x0002c90300a1b2c3 or ALL, ALL_CAS, ALL_SWITCHES, "
              "ALL_ROUTERS, SELF, NONE");
        return false;
      }
      m.guid = *g;
    }
    st.members.push_back(m);
    return true;
  }

  void mgid_line(const MgidSyntax& ms, Statement& st) {
    const Field& f = ms.mgid;
    const std::string_view text = sv(f.value);
    auto gid = f.has_value ? parse_gid(text) : std::nullopt;
    McGroupLine line;
    line.loc = loc(f.text.begin);
    for (const Field& flag : ms.flags) {
      if (!group_flag(flag, LineSink{line.overrides}))
        warn(kUnknownFlag, flag.key.begin,
             "unknown multicast group flag '" + std::string(sv(flag.key)) + "' ignored" +
                 (match_member_keyword(sv(flag.key)) != MemberKind::kGuid
                      ? " (members cannot follow an mgid on the same line)"
                      : ""),
             "mtu, rate, sl, scope, Q_Key, TClass or FlowLabel");
    }
    if (!gid || (*gid)[0] != 0xff) {
      warn(kBadMgid, f.has_value ? f.value.begin : f.key.begin,
           "mgid '" + std::string(text) + "' is not a multicast GID; group skipped",
           "an IPv6-format GID starting with ff, e.g. ff12:401b::1");
      return;
    }
    line.mgid = *gid;
    st.groups.push_back(line);
  }

  std::optional<Statement> statement(const StatementSyntax& s) {
    Statement st;
    st.loc = loc(s.span.begin);
    bool ok = definition(s.definition, st);
    for (const Field& f : s.flags)
      header_flag(f, st);
    for (const BodyItem& item : s.body) {
      if (item.kind == BodyItem::Kind::kMgid)
        mgid_line(item.mgid, st);
      else
        ok = member(item.member, st) && ok;
    }
    if (!ok) return std::nullopt;
    return st;
  }

  const SyntaxTree& t_;
  std::vector<Diagnostic>* diags_ = nullptr;
};

}  // namespace

ParseResult analyze(const SyntaxTree& tree) {
  return Analyzer(tree).run();
}

ParseResult parse_partitions(std::string_view text) {
  const SyntaxTree tree = parse_syntax(std::string(text));
  return analyze(tree);
}

}  // namespace ibsm::partitions
