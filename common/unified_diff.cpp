#include "common/unified_diff.hpp"

#include <algorithm>
#include <vector>

namespace ibsm::text {
namespace {

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::size_t b = 0;
  while (b < s.size()) {
    std::size_t e = s.find('\n', b);
    if (e == std::string::npos) {
      out.push_back(s.substr(b) + "\n\\ No newline at end of file");
      break;
    }
    out.push_back(s.substr(b, e - b));
    b = e + 1;
  }
  return out;
}

struct Op {
  char kind;         // ' ', '-', '+'
  std::size_t a, b;  // line indexes (before, after)
};

}  // namespace

std::string unified_diff(const std::string& before, const std::string& after,
                         const std::string& name_before, const std::string& name_after) {
  if (before == after) return "";
  const auto A = lines(before), B = lines(after);
  // Edits are local: strip the common head and tail, then LCS on the middle.
  std::size_t head = 0;
  while (head < A.size() && head < B.size() && A[head] == B[head])
    ++head;
  std::size_t tail = 0;
  while (tail < A.size() - head && tail < B.size() - head &&
         A[A.size() - 1 - tail] == B[B.size() - 1 - tail])
    ++tail;
  const std::size_t n = A.size() - head - tail, m = B.size() - head - tail;
  std::vector<std::vector<std::uint32_t>> lcs(n + 1, std::vector<std::uint32_t>(m + 1, 0));
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j = m; j-- > 0;)
      lcs[i][j] = A[head + i] == B[head + j] ? lcs[i + 1][j + 1] + 1
                                             : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  std::vector<Op> ops;
  for (std::size_t k = 0; k < head; ++k)
    ops.push_back({' ', k, k});
  std::size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && A[head + i] == B[head + j]) {
      ops.push_back({' ', head + i, head + j});
      ++i;
      ++j;
    } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
      ops.push_back({'-', head + i, head + j});
      ++i;
    } else {
      ops.push_back({'+', head + i, head + j});
      ++j;
    }
  }
  for (std::size_t k = 0; k < tail; ++k)
    ops.push_back({' ', A.size() - tail + k, B.size() - tail + k});

  std::string out = "--- " + name_before + "\n+++ " + name_after + "\n";
  constexpr std::size_t kContext = 3;
  std::size_t k = 0;
  while (k < ops.size()) {
    if (ops[k].kind == ' ') {
      ++k;
      continue;
    }
    std::size_t start = k >= kContext ? k - kContext : 0;
    // one hunk while changes are within 2*context lines of each other
    std::size_t last_change = k;
    for (std::size_t x = k; x < ops.size(); ++x) {
      if (ops[x].kind != ' ')
        last_change = x;
      else if (x - last_change > 2 * kContext)
        break;
    }
    const std::size_t end = std::min(ops.size() - 1, last_change + kContext);
    std::size_t a_start = ops[start].a, b_start = ops[start].b, a_len = 0, b_len = 0;
    std::string body;
    for (std::size_t x = start; x <= end; ++x) {
      const Op& o = ops[x];
      if (o.kind != '+') ++a_len;
      if (o.kind != '-') ++b_len;
      body += o.kind;
      body += (o.kind == '+' ? B[o.b] : A[o.a]) + "\n";
    }
    auto range = [](std::size_t s, std::size_t len) {
      return std::to_string(len ? s + 1 : s) + (len == 1 ? "" : "," + std::to_string(len));
    };
    out += "@@ -" + range(a_start, a_len) + " +" + range(b_start, b_len) + " @@\n" + body;
    k = end + 1;
  }
  return out;
}

}  // namespace ibsm::text
