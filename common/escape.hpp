// Display text into each format that shows it: one escaper per format, used by every
// sink of that format. Each takes any bytes and writes a well-formed value: a byte
// that is not valid UTF-8 becomes U+FFFD (the text should be display text already,
// common/display_text.hpp; this is the second line of defence, and what lets a
// fuzzer check each sink on its own).
//   Prometheus label values  /metrics            append_prometheus_label
//   HTML and SVG/XML 1.0     /, /topology.svg     append_markup
//   JSON strings             ctl --json, events   append_json_string
// Logs, dumps and ctl text answers print display text as it is: it holds no control
// character and is valid UTF-8.
#pragma once

#include <string>
#include <string_view>

namespace ibsm::text {

// A Prometheus label value without its quotes (text exposition format 0.0.4):
// backslash, double quote and line feed escaped as \\, \" and \n; the other
// characters as display text shows them.
void append_prometheus_label(std::string& out, std::string_view v);
std::string prometheus_label(std::string_view v);

// Text for an HTML or XML 1.0 document, in element content or in a quoted attribute:
// & < > " ' as entities; characters XML 1.0 does not allow (C0 controls but for
// white space, U+FFFE, U+FFFF) and the other hidden ones as display text shows them.
void append_markup(std::string& out, std::string_view v);

// A JSON string (RFC 8259), quotes included: " and \ escaped, C0 and C1 controls,
// DEL, U+2028 and U+2029 as \uXXXX (\n, \r, \t short), everything else as is.
// Lossless for valid UTF-8.
void append_json_string(std::string& out, std::string_view v);

}  // namespace ibsm::text
