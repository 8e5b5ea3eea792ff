#include "partitions/formatter.hpp"

#include <cstdio>

#include "partitions/keywords.hpp"

namespace ibsm::partitions {
namespace {

std::string rtrim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.pop_back();
  return s;
}

struct Token {
  enum class Kind { kHeader, kItem, kSemicolon } kind;
  std::size_t offset;
  std::string text;
  bool comma_after = false;
};

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

std::string hex_pkey(std::uint16_t pkey) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%04x", pkey);
  return buf;
}

std::string canonical_field(const SyntaxTree& t, const Field& f, bool member) {
  const std::string_view key = t.slice(f.key);
  const std::string_view value = t.slice(f.value);
  std::string k(key), v(value);
  if (member) {
    const MemberKind kind = match_member_keyword(key);
    if (kind != MemberKind::kGuid && !key.empty()) k = std::string(member_keyword_name(kind));
    if (f.has_value)
      if (auto m = match_membership(value)) v = std::string(membership_name(*m));
  } else if (key != "mgid") {
    if (auto g = match_group_flag(key)) {
      k = std::string(group_flag_name(*g));
    } else if (auto p = match_partition_flag(key)) {
      k = std::string(partition_flag_name(*p));
      if (*p == PartitionFlag::kDefmember && f.has_value)
        if (auto m = match_membership(value)) v = std::string(membership_name(*m));
    }
  }
  return f.has_value ? k + "=" + v : k;
}

std::string format_file(const SyntaxTree& t) {
  std::vector<Token> tokens;
  for (const StatementSyntax& s : t.statements) {
    std::string header = std::string(t.slice(s.definition.key));
    if (s.definition.has_value) header += "=" + std::string(t.slice(s.definition.value));
    for (const Field& f : s.flags)
      if (!f.text.empty()) header += ", " + canonical_field(t, f, false);
    header += ":";
    tokens.push_back({Token::Kind::kHeader, s.span.begin, header});
    for (const BodyItem& item : s.body) {
      if (item.kind == BodyItem::Kind::kMember) {
        tokens.push_back({Token::Kind::kItem, item.member.text.begin,
                          canonical_field(t, item.member, true), item.member.comma_after});
      } else {
        std::string text = canonical_field(t, item.mgid.mgid, false);
        for (const Field& f : item.mgid.flags)
          text += ", " + canonical_field(t, f, false);
        tokens.push_back({Token::Kind::kItem, item.mgid.mgid.text.begin, text, false});
      }
    }
    if (s.semicolon) tokens.push_back({Token::Kind::kSemicolon, *s.semicolon, ";"});
  }

  std::string out;
  std::size_t ti = 0;
  bool open = false;
  const std::string& text = t.text;
  std::size_t ls = 0;
  while (ls < text.size()) {
    std::size_t le = text.find('\n', ls);
    const bool has_nl = le != std::string::npos;
    if (!has_nl) le = text.size();
    std::size_t hash = text.find('#', ls);
    std::string comment;
    if (hash != std::string::npos && hash < le) comment = rtrim(text.substr(hash, le - hash));
    std::string code;
    const Token* prev = nullptr;
    Token::Kind first_kind = Token::Kind::kHeader;
    while (ti < tokens.size() && tokens[ti].offset < le) {
      const Token& tok = tokens[ti];
      if (!prev) first_kind = tok.kind;
      const Token* next =
          ti + 1 < tokens.size() && tokens[ti + 1].offset < le ? &tokens[ti + 1] : nullptr;
      switch (tok.kind) {
        case Token::Kind::kHeader:
          if (prev) code += " ";
          code += tok.text;
          open = true;
          break;
        case Token::Kind::kItem:
          if (prev && prev->kind == Token::Kind::kItem)
            code += ", ";
          else if (prev)
            code += " ";
          code += tok.text;
          if ((!next || next->kind != Token::Kind::kItem) && tok.comma_after &&
              (!next || next->kind != Token::Kind::kSemicolon))
            code += ",";
          break;
        case Token::Kind::kSemicolon:
          code += ";";
          open = false;
          break;
      }
      prev = &tok;
      ++ti;
    }
    std::string line;
    if (!code.empty()) {
      line = (first_kind != Token::Kind::kHeader ? std::string(kContinuationIndent) : "") + code;
      if (!comment.empty()) line += " " + comment;
    } else if (!comment.empty()) {
      line = (open ? std::string(kContinuationIndent) : "") + comment;
    }
    out += line;
    if (has_nl) out += "\n";
    ls = le + 1;
  }
  return out;
}

std::string member_text(const Member& m) {
  std::string s =
      m.kind == MemberKind::kGuid ? hex_guid(m.guid) : std::string(member_keyword_name(m.kind));
  if (m.membership) s += "=" + std::string(membership_name(*m.membership));
  return s;
}

namespace {

void flags_text(std::string& s, std::optional<std::uint8_t> mtu, std::optional<std::uint8_t> rate,
                std::optional<std::uint8_t> sl, std::uint16_t scope_mask,
                std::optional<std::uint32_t> qkey, std::optional<std::uint8_t> tclass,
                std::optional<std::uint32_t> flow) {
  if (mtu) s += ", mtu=" + std::to_string(*mtu);
  if (rate) s += ", rate=" + std::to_string(*rate);
  if (sl) s += ", sl=" + std::to_string(*sl);
  for (unsigned sc = 1; sc < 16; ++sc)
    if (scope_mask & (1u << sc)) s += ", scope=" + std::to_string(sc);
  if (qkey) s += ", Q_Key=" + hex(*qkey);
  if (tclass) s += ", TClass=" + std::to_string(*tclass);
  if (flow) s += ", FlowLabel=" + hex(*flow);
}

template <class T>
std::optional<T> unless_default(T v, T def) {
  return v == def ? std::nullopt : std::optional<T>(v);
}

}  // namespace

std::string statement_text(const Statement& st) {
  std::string s = st.name;
  // a name starting with a digit would be read as the P_Key without an explicit '='
  const bool digit_name = !st.name.empty() && st.name[0] >= '0' && st.name[0] <= '9';
  if (st.pkey || digit_name) s += "=" + hex_pkey(st.pkey);
  if (st.ipoib) s += ", ipoib";
  if (st.indx0) s += ", indx0";
  if (st.defmember != Membership::kLimited)
    s += ", defmember=" + std::string(membership_name(st.defmember));
  const GroupFlags def;
  flags_text(s, unless_default(st.flags.mtu, def.mtu), unless_default(st.flags.rate, def.rate),
             unless_default(st.flags.sl, def.sl), st.flags.scope_mask,
             unless_default(st.flags.qkey, def.qkey), unless_default(st.flags.tclass, def.tclass),
             unless_default(st.flags.flow_label, def.flow_label));
  s += ":";
  for (const McGroupLine& g : st.groups) {
    s += "\n" + std::string(kContinuationIndent) + "mgid=" + format_gid(g.mgid);
    const GroupOverrides& o = g.overrides;
    flags_text(s, o.mtu, o.rate, o.sl, o.scope_mask, o.qkey, o.tclass, o.flow_label);
  }
  std::string members;
  for (const Member& m : st.members)
    members += (members.empty() ? "" : ", ") + member_text(m);
  if (!st.groups.empty())
    s += "\n" + std::string(kContinuationIndent) + members + ";";
  else
    s += " " + members + ";";
  return s;
}

std::string config_text(const Config& config) {
  std::string out;
  for (const Statement& st : config.statements)
    out += statement_text(st) + "\n";
  return out;
}

}  // namespace ibsm::partitions
