#include "partitions/tool/editor.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>

#include "partitions/c_number.hpp"
#include "partitions/errors.hpp"
#include "partitions/formatter.hpp"
#include "partitions/keywords.hpp"
#include "partitions/parser.hpp"
#include "partitions/resolve.hpp"
#include "partitions/syntax.hpp"

namespace ibsm::partitions {
namespace {

struct Replace {
  Span span;
  std::string text;
};

std::string apply_edits(const std::string& text, std::vector<Replace> edits) {
  std::sort(edits.begin(), edits.end(),
            [](const Replace& a, const Replace& b) { return a.span.begin > b.span.begin; });
  std::string out = text;
  for (const Replace& e : edits)
    out.replace(e.span.begin, e.span.size(), e.text);
  return out;
}

Diagnostic problem(ErrorId id, std::string msg, std::string expected = "") {
  return {Severity::kError, id, 0, 0, std::move(msg), std::move(expected)};
}

struct Document {
  SyntaxTree tree;
  ParseResult parsed;
  ResolvedConfig resolved;
};

Result<Document, Diagnostic> load(const std::string& text) {
  Document d{parse_syntax(text), {}, {}};
  d.parsed = analyze(d.tree);
  for (const Diagnostic& x : d.parsed.diagnostics)
    if (x.severity == Severity::kError)
      return fail(Diagnostic{x.severity, x.id, x.line, x.column,
                             "the file has errors; fix them first (ibsm-part check): " + x.message,
                             x.expected});
  d.resolved = resolve(d.parsed.config);
  return d;
}

// Statements (indexes into tree.statements) of the selected partition.
std::vector<std::size_t> select(const Document& d, const std::string& selector) {
  std::optional<std::uint16_t> pkey;
  if (auto n = parse_c_number_exact(selector)) pkey = static_cast<std::uint16_t>(*n & 0x7fff);
  std::optional<std::size_t> part;
  for (std::size_t i = 0; i < d.resolved.partitions.size() && !part; ++i) {
    const auto& p = d.resolved.partitions[i];
    if ((pkey && p.pkey == *pkey) || (!pkey && p.name == selector)) part = i;
  }
  if (!part && !pkey)
    for (std::size_t s = 0; s < d.parsed.config.statements.size() && !part; ++s)
      if (d.parsed.config.statements[s].name == selector) part = d.resolved.statement_partition[s];
  std::vector<std::size_t> out;
  if (!part) return out;
  for (std::size_t s = 0; s < d.resolved.statement_partition.size(); ++s)
    if (d.resolved.statement_partition[s] == *part) out.push_back(s);
  return out;
}

EditResult validated(const std::string& before, const std::string& after) {
  const ParseResult r = parse_partitions(after);
  for (const Diagnostic& x : r.diagnostics)
    if (x.severity == Severity::kError)
      return fail(Diagnostic{Severity::kError, kBadEditArgument, x.line, x.column,
                             "the edit would make the file invalid: " + x.message, x.expected});
  (void)before;
  return after;
}

bool blank(char c) {
  return c == ' ' || c == '\t';
}

// Widens a removal to whole lines when nothing but blanks would be left on them.
Span widen_to_lines(const SyntaxTree& t, Span s) {
  const Span first = t.line_of(s.begin);
  const Span last = t.line_of(s.end > s.begin ? s.end - 1 : s.end);
  bool only_blanks = true;
  for (std::size_t i = first.begin; i < s.begin; ++i)
    only_blanks &= blank(t.text[i]);
  std::size_t after = s.end;
  while (after < last.end && blank(t.text[after]))
    ++after;
  const bool rest_is_comment_or_empty = after == last.end || t.text[after] == '#';
  if (only_blanks && rest_is_comment_or_empty) {
    const std::size_t end = last.end < t.text.size() ? last.end + 1 : last.end;
    return {first.begin, end};
  }
  return s;
}

// The canonical key of a member ("ALL", "0x...guid") to compare entries.
std::string member_key(std::string_view key) {
  const MemberKind k = match_member_keyword(key);
  if (k == MemberKind::kGuid) {
    if (auto g = parse_c_number_exact(key)) return hex_guid(*g);
    return std::string(key);
  }
  return std::string(member_keyword_name(k));
}

Result<Field, Diagnostic> parse_member_arg(const std::string& arg, SyntaxTree& holder) {
  holder = parse_syntax("X=1: " + arg + ";");
  const ParseResult r = analyze(holder);
  if (!r.ok() || holder.statements.size() != 1 || holder.statements[0].body.size() != 1 ||
      holder.statements[0].body[0].kind != BodyItem::Kind::kMember || r.config.statements.empty() ||
      r.config.statements[0].members.size() != 1)
    return fail(problem(kBadEditArgument, "not a member: '" + arg + "'",
                        "a port GUID or ALL, ALL_CAS, ALL_SWITCHES, ALL_ROUTERS, SELF, with "
                        "optional =full, =limited or =both"));
  return holder.statements[0].body[0].member;
}

}  // namespace

EditResult add_partition(const std::string& text, const std::string& definition,
                         const std::string& members) {
  auto doc = load(text);
  if (!doc.ok()) return fail(doc.error());
  const std::string stmt = definition + ": " + members + ";";
  const ParseResult r = parse_partitions(stmt);
  if (!r.ok() || r.config.statements.size() != 1)
    return fail(problem(kBadEditArgument, "not a valid partition: '" + stmt + "'",
                        "a definition like 'Storage=0x0010, ipoib' and members like 'ALL=full'"));
  const Statement& st = r.config.statements[0];
  for (const auto& p : doc->resolved.partitions)
    if ((st.pkey && p.pkey == st.pkey) || (!st.name.empty() && p.name == st.name))
      return fail(problem(kPartitionExists,
                          "partition '" + p.name + "' (" + hex_pkey(p.pkey) + ") already exists",
                          "add-member or set to change it"));
  std::string out = text;
  if (!out.empty() && out.back() != '\n') out += "\n";
  out += stmt + "\n";
  return validated(text, out);
}

EditResult remove_partition(const std::string& text, const std::string& selector) {
  auto doc = load(text);
  if (!doc.ok()) return fail(doc.error());
  const auto sel = select(*doc, selector);
  if (sel.empty()) return fail(problem(kNoSuchPartition, "no partition '" + selector + "'"));
  if (doc->resolved.statement_partition[sel[0]] == 0)
    return fail(problem(kBadEditArgument, "the default partition 0x7fff cannot be removed",
                        "set or remove-member to change it"));
  std::vector<Replace> edits;
  for (std::size_t s : sel)
    edits.push_back({widen_to_lines(doc->tree, doc->tree.statements[s].span), ""});
  return validated(text, apply_edits(text, edits));
}

EditResult add_members(const std::string& text, const std::string& selector,
                       const std::vector<std::string>& members) {
  std::string current = text;
  for (const std::string& arg : members) {
    auto doc = load(current);
    if (!doc.ok()) return fail(doc.error());
    const auto sel = select(*doc, selector);
    if (sel.empty()) return fail(problem(kNoSuchPartition, "no partition '" + selector + "'"));
    SyntaxTree holder;
    auto field = parse_member_arg(arg, holder);
    if (!field.ok()) return fail(field.error());
    const std::string key = member_key(holder.slice(field->key));
    const std::string canonical = canonical_field(holder, *field, true);
    const SyntaxTree& t = doc->tree;
    std::optional<Replace> edit;
    for (std::size_t s : sel) {
      for (const BodyItem& item : t.statements[s].body) {
        if (item.kind == BodyItem::Kind::kMember && member_key(t.slice(item.member.key)) == key) {
          // keep the port as the file spells it; only the membership changes
          std::string replacement(t.slice(item.member.key));
          const auto eq = canonical.find('=');
          if (eq != std::string::npos) replacement += canonical.substr(eq);
          edit = Replace{item.member.text, replacement};
          break;
        }
      }
      if (edit) break;
    }
    if (!edit) {
      const StatementSyntax* target = &t.statements[sel[0]];
      for (std::size_t s : sel) {
        const auto& body = t.statements[s].body;
        if (std::any_of(body.begin(), body.end(),
                        [](const BodyItem& b) { return b.kind == BodyItem::Kind::kMember; })) {
          target = &t.statements[s];
          break;
        }
      }
      const BodyItem* last_member = nullptr;
      for (const BodyItem& b : target->body)
        if (b.kind == BodyItem::Kind::kMember) last_member = &b;
      if (last_member) {
        edit =
            Replace{{last_member->member.text.end, last_member->member.text.end}, ", " + canonical};
      } else {
        const std::size_t at = target->semicolon ? *target->semicolon : target->span.end;
        const bool after_mgid =
            !target->body.empty() &&
            t.position(target->body.back().span().end).first == t.position(at).first;
        std::string ins = after_mgid ? "\n" + std::string(kContinuationIndent) + canonical
                                     : (at > 0 && !blank(t.text[at - 1]) ? " " : "") + canonical;
        if (!target->semicolon) ins += ";";
        edit = Replace{{at, at}, ins};
      }
    }
    auto next = validated(current, apply_edits(current, {*edit}));
    if (!next.ok()) return next;
    current = *next;
  }
  return current;
}

EditResult remove_members(const std::string& text, const std::string& selector,
                          const std::vector<std::string>& members) {
  auto doc = load(text);
  if (!doc.ok()) return fail(doc.error());
  const auto sel = select(*doc, selector);
  if (sel.empty()) return fail(problem(kNoSuchPartition, "no partition '" + selector + "'"));
  const SyntaxTree& t = doc->tree;
  std::vector<Replace> edits;
  for (const std::string& arg : members) {
    SyntaxTree holder;
    auto field = parse_member_arg(arg, holder);
    if (!field.ok()) return fail(field.error());
    const std::string key = member_key(holder.slice(field->key));
    bool found = false;
    for (std::size_t s : sel) {
      for (const BodyItem& item : t.statements[s].body) {
        if (item.kind != BodyItem::Kind::kMember || member_key(t.slice(item.member.key)) != key)
          continue;
        found = true;
        Span r = item.member.raw;
        if (item.member.comma_after) {
          r.end += 1;
        } else {
          std::size_t b = r.begin;
          while (b > 0 && blank(t.text[b - 1]))
            --b;
          if (b > 0 && t.text[b - 1] == ',') {
            r.begin = b - 1;
          } else if (&item == &t.statements[s].body.back()) {
            // last item, alone on its line: drop the trailing ',' of the item before it
            const BodyItem* prev = nullptr;
            for (const BodyItem& other : t.statements[s].body)
              if (&other != &item && other.kind == BodyItem::Kind::kMember) prev = &other;
            if (prev && prev->member.comma_after)
              edits.push_back({{prev->member.raw.end, prev->member.raw.end + 1}, ""});
          }
        }
        // keep one blank between ':' and what follows
        if (r.begin > 0 && t.text[r.begin - 1] == ':' && r.end < t.text.size() &&
            !blank(t.text[r.end]) && t.text[r.end] != ';' && t.text[r.end] != '\n')
          edits.push_back({r, " "});
        else
          edits.push_back({widen_to_lines(t, r), ""});
      }
    }
    if (!found)
      return fail(problem(kNoSuchPartition, "'" + arg + "' is not a member of '" + selector + "'"));
  }
  return validated(text, apply_edits(text, edits));
}

EditResult set_flags(const std::string& text, const std::string& selector,
                     const std::vector<std::string>& sets, const std::vector<std::string>& unsets) {
  std::string current = text;
  auto canonical_name = [](std::string_view key) -> std::optional<std::string> {
    if (auto g = match_group_flag(key)) return std::string(group_flag_name(*g));
    if (auto p = match_partition_flag(key)) return std::string(partition_flag_name(*p));
    return std::nullopt;
  };
  for (const std::string& name : unsets) {
    auto doc = load(current);
    if (!doc.ok()) return fail(doc.error());
    const auto sel = select(*doc, selector);
    if (sel.empty()) return fail(problem(kNoSuchPartition, "no partition '" + selector + "'"));
    auto want = canonical_name(name);
    if (!want || name.empty())
      return fail(problem(kBadEditArgument, "unknown flag '" + name + "'"));
    std::vector<Replace> edits;
    const SyntaxTree& t = doc->tree;
    for (std::size_t s : sel)
      for (const Field& f : t.statements[s].flags)
        if (!f.text.empty() && canonical_name(t.slice(f.key)) == want) {
          std::size_t b = f.raw.begin;  // the ',' before the flag
          edits.push_back({{b > 0 ? b - 1 : b, f.raw.end}, ""});
        }
    auto next = validated(current, apply_edits(current, edits));
    if (!next.ok()) return next;
    current = *next;
  }
  for (const std::string& arg : sets) {
    auto doc = load(current);
    if (!doc.ok()) return fail(doc.error());
    const auto sel = select(*doc, selector);
    if (sel.empty()) return fail(problem(kNoSuchPartition, "no partition '" + selector + "'"));
    SyntaxTree holder = parse_syntax("X=1, " + arg + ": ;");
    const ParseResult check = analyze(holder);
    if (holder.statements.size() != 1 || holder.statements[0].flags.size() != 1 || !check.ok() ||
        std::any_of(check.diagnostics.begin(), check.diagnostics.end(), [](const Diagnostic& x) {
          return x.id == kUnknownFlag || x.id == kBadFlagValue;
        }))
      return fail(problem(
          kBadEditArgument, "not a valid flag: '" + arg + "'",
          "ipoib, indx0, mtu=, rate=, sl=, scope=, Q_Key=, TClass=, FlowLabel=, defmember="));
    const Field& nf = holder.statements[0].flags[0];
    const auto want = canonical_name(holder.slice(nf.key));
    const std::string replacement = canonical_field(holder, nf, false);
    const SyntaxTree& t = doc->tree;
    std::vector<Replace> edits;
    for (std::size_t s : sel)
      for (const Field& f : t.statements[s].flags)
        if (!f.text.empty() && canonical_name(t.slice(f.key)) == want) {
          if (*want == "scope") {
            if (c_number_prefix(t.slice(f.value)) == c_number_prefix(holder.slice(nf.value)))
              edits.push_back({f.text, replacement});
            continue;
          }
          edits.push_back({f.text, replacement});
        }
    if (edits.empty()) {
      const StatementSyntax& st = t.statements[sel[0]];
      const std::size_t at = st.flags.empty() ? st.definition.text.end : st.flags.back().text.end;
      const std::size_t pos = st.flags.empty() && st.definition.text.empty() ? st.colon : at;
      edits.push_back({{pos, pos}, ", " + replacement});
    }
    auto next = validated(current, apply_edits(current, edits));
    if (!next.ok()) return next;
    current = *next;
  }
  return current;
}

}  // namespace ibsm::partitions
