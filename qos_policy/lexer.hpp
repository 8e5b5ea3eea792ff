// Tokens of the QoS policy file, cut the way OpenSM's flex scanner
// (osm_qos_parser_l.l) cuts them, so that a file means the same to both: longest match
// first, keywords recognised anywhere (no word boundaries), and a per-line mode set by
// the keyword that starts a value and cleared at the end of the line:
// - after `use:` (a description) blanks, digits, '-', ':', ',' and '*' are text;
// - after a key whose value is names (name, group, source, port-name, ...) digits,
//   '-', ':' and '*' are text, ',' separates, blanks are dropped;
// - after `node-type:` CA, SWITCH, ROUTER, SELF and ALL (any case) are node types;
// - elsewhere numbers (C notation: 0x hex, leading 0 octal) are numbers.
// "Quoted text" is one text token without its quotes (blanks kept). '#' starts a
// comment to the end of the line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "qos_policy/model.hpp"

namespace ibsm::qos_policy {

enum class Kw : std::uint8_t {
  kNone,
  // Sections and subsections.
  kQosUlps,
  kEndQosUlps,
  kPortGroups,
  kEndPortGroups,
  kPortGroup,
  kEndPortGroup,
  kQosSetup,
  kEndQosSetup,
  kVlarbTables,
  kEndVlarbTables,
  kVlarbScope,
  kEndVlarbScope,
  kSl2vlTables,
  kEndSl2vlTables,
  kSl2vlScope,
  kEndSl2vlScope,
  kQosLevels,
  kEndQosLevels,
  kQosLevel,
  kEndQosLevel,
  kQosMatchRules,
  kEndQosMatchRules,
  kQosMatchRule,
  kEndQosMatchRule,
  // "key:" (the colon and the blanks around it are part of the token).
  kPortGuid,
  kPortName,
  kPartition,
  kNodeType,
  kName,
  kUse,
  kGroup,
  kVlarbHigh,
  kVlarbLow,
  kVlHighLimit,
  kTo,
  kFrom,
  kAcrossTo,
  kAcrossFrom,
  kAcross,
  kSl2vlTable,
  kSl,
  kMtuLimit,
  kRateLimit,
  kPacketLife,
  kPathBits,
  kQosClass,
  kSource,
  kDestination,
  kServiceId,
  kPKey,
  kQosLevelName,
  // Node types (only after node-type:).
  kCa,
  kSwitch,
  kRouter,
  kSelf,
  kAll,
  // qos-ulps rule heads.
  kUlpDefault,
  kUlpAnyServiceId,
  kUlpAnyPKey,
  kUlpAnyTargetGuid,
  kUlpAnySourceGuid,
  kUlpAnySourceTargetGuid,
  kUlpSdpDefault,
  kUlpSdpPort,
  kUlpRdsDefault,
  kUlpRdsPort,
  kUlpIserDefault,
  kUlpIserPort,
  kUlpSrpGuid,
  kUlpIpoibDefault,
  kUlpIpoibPKey,
};

enum class Tok : std::uint8_t {
  kEnd,
  kKeyword,  // kw says which (sections, keys, node types, ULP heads)
  kText,
  kNumber,
  kDash,
  kColon,
  kComma,
  kAsterisk,
};

struct Token {
  Tok kind = Tok::kEnd;
  Kw kw = Kw::kNone;
  std::string text;  // as written (text: the text; quoted: without quotes)
  SourcePos pos;
};

std::vector<Token> tokenize(std::string_view text);

// How a keyword reads in messages ("port-group", "name:", "sdp, port-num").
std::string keyword_spelling(Kw kw);

}  // namespace ibsm::qos_policy
