#include "routing/hop_weights.hpp"

#include <cctype>
#include <charconv>
#include <string>

#include "routing/errors.hpp"

namespace ibsm::routing {
namespace {

std::string_view next_word(std::string_view& s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  std::size_t n = 0;
  while (n < s.size() && !std::isspace(static_cast<unsigned char>(s[n])))
    ++n;
  const std::string_view word = s.substr(0, n);
  s.remove_prefix(n);
  return word;
}

// Decimal, or hex with 0x (OpenSM reads these columns with strtoul(..., 0)).
bool parse_number(std::string_view s, std::uint64_t& out) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  if (s.empty()) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return ec == std::errc{} && end == s.data() + s.size();
}

bool is_hex_guid(std::string_view s) {
  return s.size() > 2 && s.size() <= 18 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

}  // namespace

HopWeightsFile parse_hop_weights(std::string_view text, std::string_view file_name) {
  HopWeightsFile out;
  std::size_t line_no = 0;
  while (!text.empty()) {
    const std::size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
    ++line_no;
    if (const std::size_t hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    std::string_view rest = line;
    const std::string_view guid_text = next_word(rest);
    if (guid_text.empty()) continue;  // blank or comment-only line
    const std::string_view port_text = next_word(rest);
    const std::string_view weight_text = next_word(rest);
    const std::string_view extra = next_word(rest);
    const auto bad = [&](const std::string& why) {
      out.warnings.push_back(
          {kErrHopWeightsFile,
           std::string(file_name) + ":" + std::to_string(line_no) + ": " + why + "; line skipped"});
    };
    std::uint64_t guid = 0, port = 0, weight = 0;
    if (!is_hex_guid(guid_text) || !parse_number(guid_text, guid) || guid == 0) {
      bad("'" + std::string(guid_text) + "' is not a switch GUID (0x + hex)");
    } else if (!parse_number(port_text, port) || port == 0 || port > 254) {
      bad("port '" + std::string(port_text) + "' is not a port number 1-254");
    } else if (!parse_number(weight_text, weight) || weight == 0 || weight > 255) {
      bad("weight '" + std::string(weight_text) + "' is not a number 1-255");
    } else if (!extra.empty()) {
      bad("unexpected '" + std::string(extra) + "' after the weight");
    } else {
      out.weights.push_back({guid, static_cast<PortNum>(port), static_cast<std::uint8_t>(weight)});
    }
  }
  return out;
}

}  // namespace ibsm::routing
