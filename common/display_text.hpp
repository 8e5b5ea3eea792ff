// Wire text into display text: the one rule for every string that comes off the
// fabric (NodeDescription, ServiceName) or out of an admin's file (node_name_map
// names) and is then shown to people, in /metrics, the status page and its SVG,
// ctl answers, events, logs and dumps.
//
// Display text is valid UTF-8 with no control characters and a bounded length:
//   - the text ends at its first NUL (IBA 14.2.5.2: NodeDescription is NUL-padded;
//     15.2.5.14: so is ServiceName);
//   - a byte that is not part of a well-formed UTF-8 sequence (a stray continuation
//     byte, a truncated sequence, an overlong form, a surrogate, a value beyond
//     U+10FFFF) becomes U+FFFD, one for each such byte;
//   - the white-space controls HT, LF, VT, FF and CR become a blank (as OpenSM's
//     clean_nodedesc shows them); every other C0 control, DEL, every C1 control
//     (U+0080-U+009F), the line and paragraph separators U+2028/U+2029, the
//     bidirectional embedding, override and isolate controls (U+202A-U+202E,
//     U+2066-U+2069) and the noncharacters (U+FDD0-U+FDEF, U+xxFFFE, U+xxFFFF)
//     become U+FFFD;
//   - the result is cut to at most `max_bytes` bytes, at a character boundary.
// Printable ASCII passes unchanged, so a clean name shows exactly as before; valid
// UTF-8 (accents, CJK) passes too. The rule is applied once, where the text enters
// (mad::NodeDescription's decoder, the node name map's reader, ServiceName where it
// is logged); every sink then escapes for its own format (common/escape.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ibsm::text {

inline constexpr char32_t kReplacement = U'\uFFFD';
inline constexpr char32_t kBadSequence = 0xFFFFFFFF;  // what next_code_point returns for a bad byte

// The code point of the well-formed UTF-8 sequence at s[i] (RFC 3629 / Unicode 3.9,
// Table 3-7), advancing i past it; a byte that does not start one: kBadSequence,
// advancing i by one. i < s.size() is the caller's.
char32_t next_code_point(std::string_view s, std::size_t& i);

// `cp` appended as UTF-8 (cp is a scalar value: not a surrogate, at most U+10FFFF).
void append_utf8(std::string& out, char32_t cp);

// True for the code points display text never holds (see above), blanks excepted.
bool is_hidden_code_point(char32_t cp);

// What display text shows for `cp`: itself, a blank (white-space controls) or U+FFFD.
char32_t display_code_point(char32_t cp);

// A bound that fits every wire field (64 bytes, each possibly tripled by U+FFFD).
inline constexpr std::size_t kMaxDisplayBytes = 256;

// `wire` as display text (the rule above), at most `max_bytes` bytes.
std::string display_text(std::string_view wire, std::size_t max_bytes = kMaxDisplayBytes);

// True if `s` is display text: valid UTF-8, no code point that display_code_point
// changes, no NUL.
bool is_display_text(std::string_view s);

// True if `s` is valid UTF-8 (any code points).
bool is_valid_utf8(std::string_view s);

// OpenSM shows at most 63 characters of a NodeDescription (its print_desc).
inline constexpr std::size_t kNodeNameBytes = 63;

// The name people see for a node, everywhere (logs, dumps, ctl, /metrics, the page):
// the node name map's name for it when there is one (`mapped`, already display text),
// else its NodeDescription as display text cut at 63 bytes; empty while neither is
// known (callers then show the GUID, as they do beside the name anyway).
std::string display_name(const std::string* mapped, std::string_view description);

}  // namespace ibsm::text
