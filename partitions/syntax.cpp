#include "partitions/syntax.hpp"

#include <algorithm>

#include "partitions/errors.hpp"

namespace ibsm::partitions {
namespace {

// OpenSM trims only these (parse_name_token); '\r' stays part of a word as in OpenSM.
bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\n';
}

class Reader {
 public:
  explicit Reader(SyntaxTree& tree) : t_(tree) {}

  void run() {
    index_lines();
    for (std::size_t ln = 0; ln < t_.line_starts.size(); ++ln)
      read_line(ln);
    if (open_) {
      auto [line, col] = t_.position(open_->span.begin);
      warn(kUnterminatedStatement, open_->span.begin,
           "the last statement has no ';' (it starts at line " + std::to_string(line) + ":" +
               std::to_string(col) + ")",
           "';'");
      t_.statements.push_back(std::move(*open_));
      open_.reset();
    }
  }

 private:
  void index_lines() {
    t_.line_starts.push_back(0);
    for (std::size_t i = 0; i < t_.text.size(); ++i)
      if (t_.text[i] == '\n' && i + 1 < t_.text.size()) t_.line_starts.push_back(i + 1);
    if (t_.text.empty()) t_.line_starts.clear();
  }

  void add(Severity s, ErrorId id, std::size_t at, std::string msg, std::string expected) {
    auto [line, col] = t_.position(at);
    t_.diagnostics.push_back({s, id, line, col, std::move(msg), std::move(expected)});
  }
  void error(ErrorId id, std::size_t at, std::string msg, std::string expected) {
    add(Severity::kError, id, at, std::move(msg), std::move(expected));
  }
  void warn(ErrorId id, std::size_t at, std::string msg, std::string expected) {
    add(Severity::kWarning, id, at, std::move(msg), std::move(expected));
  }

  std::size_t find(char c, std::size_t from, std::size_t to) const {
    for (std::size_t i = from; i < to; ++i)
      if (t_.text[i] == c) return i;
    return std::string::npos;
  }

  Field make_field(std::size_t a, std::size_t b) const {
    Field f;
    f.raw = {a, b};
    std::size_t ta = a, tb = b;
    while (ta < tb && is_blank(t_.text[ta]))
      ++ta;
    while (tb > ta && is_blank(t_.text[tb - 1]))
      --tb;
    f.text = {ta, tb};
    const std::size_t eq = find('=', ta, tb);
    std::size_t ke = eq == std::string::npos ? tb : eq;
    while (ke > ta && is_blank(t_.text[ke - 1]))
      --ke;
    f.key = {ta, ke};
    if (eq != std::string::npos) {
      f.has_value = true;
      std::size_t va = eq + 1;
      while (va < tb && is_blank(t_.text[va]))
        ++va;
      f.value = {va, tb};
    }
    return f;
  }

  std::vector<Field> split(std::size_t a, std::size_t b) const {
    std::vector<Field> out;
    std::size_t start = a;
    for (std::size_t i = a; i <= b; ++i) {
      if (i == b || t_.text[i] == ',') {
        out.push_back(make_field(start, i));
        out.back().comma_after = i < b;
        start = i + 1;
      }
    }
    return out;
  }

  void read_body(std::size_t a, std::size_t b) {
    auto fields = split(a, b);
    for (std::size_t i = 0; i < fields.size(); ++i) {
      const Field& f = fields[i];
      if (t_.slice(f.key) == "mgid") {
        BodyItem item;
        item.kind = BodyItem::Kind::kMgid;
        item.mgid.mgid = f;
        for (std::size_t j = i + 1; j < fields.size(); ++j)
          if (!fields[j].text.empty()) item.mgid.flags.push_back(fields[j]);
        open_->body.push_back(std::move(item));
        break;
      }
      if (f.text.empty()) continue;
      BodyItem item;
      item.member = f;
      open_->body.push_back(std::move(item));
    }
  }

  void read_line(std::size_t ln) {
    const std::size_t ls = t_.line_starts[ln];
    std::size_t le = t_.text.find('\n', ls);
    if (le == std::string::npos) le = t_.text.size();
    if (le - ls > kOpenSmMaxLine)
      warn(kLongLine, ls,
           "line is " + std::to_string(le - ls) + " bytes long; OpenSM cuts lines after " +
               std::to_string(kOpenSmMaxLine) + " bytes",
           "");
    std::size_t ce = find('#', ls, le);
    if (ce == std::string::npos) ce = le;
    std::size_t p = ls;
    while (true) {
      while (p < ce && is_blank(t_.text[p]))
        ++p;
      if (p >= ce) return;
      const std::size_t semi = find(';', p, ce);
      const std::size_t chunk_end = semi == std::string::npos ? ce : semi;
      if (skipping_) {
        if (semi == std::string::npos) return;
        skipping_ = false;
        p = semi + 1;
        continue;
      }
      std::size_t body_start = p;
      if (!open_) {
        if (p == semi) {
          error(kEmptyStatement, p, "';' without a partition definition before it",
                "'Name[=PKey][,flags]: members;'");
          p = semi + 1;
          continue;
        }
        const std::size_t colon = find(':', p, chunk_end);
        if (colon == std::string::npos) {
          std::size_t e = chunk_end;
          while (e > p && is_blank(t_.text[e - 1]))
            --e;
          error(kMissingColon, p,
                "no ':' after the partition definition '" +
                    std::string(t_.slice({p, std::min(e, p + 60)})) + "'",
                "':' on the same line, between the partition definition and its members");
          if (semi == std::string::npos) {
            skipping_ = true;
            return;
          }
          p = semi + 1;
          continue;
        }
        open_.emplace();
        open_->span = {p, colon + 1};
        auto header = split(p, colon);
        open_->definition = header.front();
        for (std::size_t i = 1; i < header.size(); ++i)
          open_->flags.push_back(header[i]);
        open_->colon = colon;
        body_start = colon + 1;
      }
      read_body(body_start, chunk_end);
      if (!open_->body.empty())
        open_->span.end = std::max(open_->span.end, open_->body.back().span().end);
      if (semi == std::string::npos) return;
      if (p == semi && !open_->body.empty() && open_->body.back().kind == BodyItem::Kind::kMgid &&
          t_.position(open_->body.back().span().begin).first != t_.position(semi).first)
        warn(kOpenSmReadsDifferently, semi,
             "OpenSM 3.3.23 rejects a ';' alone on a line after mgid lines "
             "(\"no partition definition found\")",
             "the ';' after the last member, e.g. 'ALL=full;'");
      open_->semicolon = semi;
      open_->span.end = semi + 1;
      t_.statements.push_back(std::move(*open_));
      open_.reset();
      p = semi + 1;
    }
  }

  SyntaxTree& t_;
  std::optional<StatementSyntax> open_;
  bool skipping_ = false;
};

}  // namespace

Span BodyItem::span() const {
  if (kind == Kind::kMember) return member.text;
  Span s = mgid.mgid.text;
  if (!mgid.flags.empty()) s.end = mgid.flags.back().text.end;
  return s;
}

std::pair<int, int> SyntaxTree::position(std::size_t offset) const {
  if (line_starts.empty()) return {1, static_cast<int>(offset) + 1};
  auto it = std::upper_bound(line_starts.begin(), line_starts.end(), offset);
  const std::size_t idx = static_cast<std::size_t>(it - line_starts.begin()) - 1;
  return {static_cast<int>(idx) + 1, static_cast<int>(offset - line_starts[idx]) + 1};
}

Span SyntaxTree::line_of(std::size_t offset) const {
  std::size_t b = offset;
  while (b > 0 && text[b - 1] != '\n')
    --b;
  std::size_t e = text.find('\n', offset);
  if (e == std::string::npos) e = text.size();
  return {b, e};
}

SyntaxTree parse_syntax(std::string text) {
  SyntaxTree tree;
  tree.text = std::move(text);
  Reader(tree).run();
  return tree;
}

}  // namespace ibsm::partitions
