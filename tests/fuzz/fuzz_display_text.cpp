// Fuzz target: any bytes as wire text (a NodeDescription, a ServiceName, a node name
// map name) on their way to the operator (common/display_text.hpp, common/escape.hpp).
// For every input:
//   - its display text is valid UTF-8 with no control or hidden character, within
//     the bound, unchanged by a second pass, and the input itself when that was
//     clean printable ASCII;
//   - the Prometheus label value of it reads back (text exposition format 0.0.4:
//     only \\, \" and \n escapes, no raw '"' or line feed) to the display text;
//   - its HTML/XML form holds only XML 1.0 characters, no raw < > " ', every '&'
//     starts one of the entities written, and reads back to the display text;
//   - its JSON string is one valid JSON string (RFC 8259) and reads back to the
//     input with each bad byte as U+FFFD.
// Each escaper is also fed the raw input: its output must be well formed all the same.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/display_text.hpp"
#include "common/escape.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

using namespace ibsm;
constexpr std::string_view kTarget = "display_text";

void expect(bool ok, std::string_view what) {
  fuzz::expect(ok, kTarget, what);
}

// The input with every byte that is not valid UTF-8 as U+FFFD.
std::string valid_utf8(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    const char32_t cp = text::next_code_point(s, i);
    text::append_utf8(out, cp == text::kBadSequence ? text::kReplacement : cp);
  }
  return out;
}

// A label value as Prometheus' text parser reads it (without the quotes).
std::optional<std::string> read_label(std::string_view v) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const char c = v[i];
    if (c == '"' || c == '\n') return std::nullopt;
    if (c != '\\') {
      out += c;
      continue;
    }
    if (++i == v.size()) return std::nullopt;
    switch (v[i]) {
      case '\\':
        out += '\\';
        break;
      case '"':
        out += '"';
        break;
      case 'n':
        out += '\n';
        break;
      default:
        return std::nullopt;
    }
  }
  if (!text::is_valid_utf8(out)) return std::nullopt;
  return out;
}

bool xml_char(char32_t cp) {
  return cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) ||
         (cp >= 0xE000 && cp <= 0xFFFD) || (cp >= 0x10000 && cp <= 0x10FFFF);
}

// Markup as an XML parser reads character data: the five entities we write, nothing else.
std::optional<std::string> read_markup(std::string_view m) {
  std::string out;
  for (std::size_t i = 0; i < m.size();) {
    const std::size_t at = i;
    const char32_t cp = text::next_code_point(m, i);
    if (cp == text::kBadSequence || !xml_char(cp)) return std::nullopt;
    if (cp == '<' || cp == '>' || cp == '"' || cp == '\'') return std::nullopt;
    if (cp != '&') {
      out.append(m.substr(at, i - at));
      continue;
    }
    static constexpr std::pair<std::string_view, char> kEntities[] = {
        {"amp;", '&'}, {"lt;", '<'}, {"gt;", '>'}, {"quot;", '"'}, {"#39;", '\''}};
    bool known = false;
    for (const auto& [name, c] : kEntities) {
      if (m.substr(i, name.size()) == name) {
        out += c;
        i += name.size();
        known = true;
        break;
      }
    }
    if (!known) return std::nullopt;
  }
  return out;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// One JSON string (RFC 8259 section 7), quotes included, decoded; nullopt if invalid.
std::optional<std::string> read_json_string(std::string_view j) {
  if (j.size() < 2 || j.front() != '"' || j.back() != '"') return std::nullopt;
  j = j.substr(1, j.size() - 2);
  std::string out;
  auto hex4 = [&](std::size_t at) -> long {
    if (j.size() - at < 4) return -1;
    long v = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      const int h = hex_value(j[at + k]);
      if (h < 0) return -1;
      v = v * 16 + h;
    }
    return v;
  };
  for (std::size_t i = 0; i < j.size();) {
    const std::size_t at = i;
    const char32_t cp = text::next_code_point(j, i);
    if (cp == text::kBadSequence || cp < 0x20 || cp == '"') return std::nullopt;
    if (cp != '\\') {
      out.append(j.substr(at, i - at));
      continue;
    }
    if (i == j.size()) return std::nullopt;
    const char e = j[i++];
    switch (e) {
      case '"':
      case '\\':
      case '/':
        out += e;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        long v = hex4(i);
        if (v < 0) return std::nullopt;
        i += 4;
        if (v >= 0xD800 && v <= 0xDBFF) {
          if (j.substr(i, 2) != "\\u") return std::nullopt;
          const long lo = hex4(i + 2);
          if (lo < 0xDC00 || lo > 0xDFFF) return std::nullopt;
          i += 6;
          v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00);
        } else if (v >= 0xDC00 && v <= 0xDFFF) {
          return std::nullopt;
        }
        text::append_utf8(out, static_cast<char32_t>(v));
        break;
      }
      default:
        return std::nullopt;
    }
  }
  return out;
}

bool printable_ascii(std::string_view s) {
  for (const char c : s)
    if (c < 0x20 || c > 0x7e) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The first byte picks the bound (a NodeDescription's 63 or 64, or anything), the
  // rest is the wire text.
  if (size == 0) return 0;
  const std::size_t bound = data[0];
  const std::string_view wire = fuzz::as_text(data + 1, size - 1);

  const std::string shown = text::display_text(wire, bound);
  expect(shown.size() <= bound, "display text beyond its bound");
  expect(text::is_display_text(shown), "display text is not valid UTF-8 without controls");
  expect(text::display_text(shown, bound) == shown, "a second pass changes display text");
  const std::string_view upto_nul = wire.substr(0, wire.find('\0'));
  if (printable_ascii(upto_nul) && upto_nul.size() <= bound)
    expect(shown == upto_nul, "clean ASCII changed");

  for (const std::string_view in : {std::string_view(shown), wire}) {
    const auto label = read_label(text::prometheus_label(in));
    expect(label.has_value(), "a Prometheus label value that does not parse");
    if (in.data() == shown.data()) expect(*label == shown, "a label value reads back changed");

    std::string m;
    text::append_markup(m, in);
    const auto markup = read_markup(m);
    expect(markup.has_value(), "markup that is not well-formed XML 1.0 character data");
    if (in.data() == shown.data()) expect(*markup == shown, "markup reads back changed");

    std::string j;
    text::append_json_string(j, in);
    const auto json = read_json_string(j);
    expect(json.has_value(), "an invalid JSON string");
    expect(*json == valid_utf8(in), "a JSON string reads back changed");
  }
  return 0;
}
