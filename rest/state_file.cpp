#include "rest/state_file.hpp"

#include <filesystem>
#include <system_error>
#include <vector>

#include <spdlog/fmt/fmt.h>

#include "common/atomic_file.hpp"
#include "common/lines.hpp"
#include "rest/errors.hpp"

namespace ibsm::rest {

namespace {

std::vector<std::string_view> words_of(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
      ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
      ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

// "name=0" / "name=1"
bool flag_word(std::string_view word, std::string_view name, bool& out) {
  if (word.size() != name.size() + 2 || word.substr(0, name.size()) != name ||
      word[name.size()] != '=') {
    return false;
  }
  const char v = word.back();
  if (v != '0' && v != '1') return false;
  out = v == '1';
  return true;
}

}  // namespace

std::string format_state(const ApiState& state) {
  std::string out = fmt::format(
      "# The P_Key memberships ibsm's REST API added (docs/integrations-ufm.md).\n"
      "# Written by ibsm; read at start and by a standby that takes over.\n"
      "ibsm-rest-state {}\n",
      kStateFileVersion);
  for (const auto& [pkey, part] : state.partitions) {
    if (part.members.empty()) continue;
    out += fmt::format("partition {} ip_over_ib={}\n", pkey_text(pkey), part.ip_over_ib ? 1 : 0);
    for (const auto& [guid, flags] : part.members) {
      out += fmt::format("member {} 0x{} {} index0={}\n", pkey_text(pkey), guid_text(guid),
                         membership_word(flags.membership), flags.index0 ? 1 : 0);
    }
  }
  return out;
}

Result<ApiState> parse_state(std::string_view text, std::string_view file_name) {
  ApiState state;
  bool have_version = false;
  for (const text::Line& line : text::Lines(text)) {
    const auto bad = [&](std::string_view why) {
      return fail(kErrRestStateFile, fmt::format("{}:{}: {}", file_name, line.number, why));
    };
    const auto words = words_of(line.text);
    if (words.empty() || words[0].front() == '#') continue;
    if (!have_version) {
      if (words.size() != 2 || words[0] != "ibsm-rest-state") {
        return bad("the first entry must be \"ibsm-rest-state <version>\"");
      }
      if (words[1] != std::to_string(kStateFileVersion)) {
        return bad(fmt::format("version {} is not one this ibsm reads ({})", words[1].substr(0, 16),
                               kStateFileVersion));
      }
      have_version = true;
      continue;
    }
    if (words[0] == "partition") {
      if (words.size() != 3) return bad("expected \"partition 0xNNNN ip_over_ib=0|1\"");
      auto pkey = parse_pkey(words[1]);
      if (!pkey) return bad(pkey.error().message);
      bool ipoib = false;
      if (!flag_word(words[2], "ip_over_ib", ipoib)) {
        return bad(
            fmt::format("\"{}\" is not ip_over_ib=0 or ip_over_ib=1", words[2].substr(0, 32)));
      }
      if (!state.partitions.try_emplace(*pkey, ApiPartition{ipoib, {}}).second) {
        return bad(fmt::format("partition {} is listed twice", pkey_text(*pkey)));
      }
    } else if (words[0] == "member") {
      if (words.size() != 5)
        return bad("expected \"member 0xNNNN 0xGUID full|limited index0=0|1\"");
      auto pkey = parse_pkey(words[1]);
      if (!pkey) return bad(pkey.error().message);
      auto part = state.partitions.find(*pkey);
      if (part == state.partitions.end()) {
        return bad(
            fmt::format("member of partition {}, which no line above declares", pkey_text(*pkey)));
      }
      if (words[2].size() != 18 || words[2].substr(0, 2) != "0x") {
        return bad(fmt::format("\"{}\" is not 0x and 16 hex digits", words[2].substr(0, 40)));
      }
      auto guid = parse_guid(words[2]);
      if (!guid) return bad(guid.error().message);
      MemberFlags flags;
      if (words[3] == "full") {
        flags.membership = Membership::kFull;
      } else if (words[3] == "limited") {
        flags.membership = Membership::kLimited;
      } else {
        return bad(fmt::format("\"{}\" is not full or limited", words[3].substr(0, 32)));
      }
      if (!flag_word(words[4], "index0", flags.index0)) {
        return bad(fmt::format("\"{}\" is not index0=0 or index0=1", words[4].substr(0, 32)));
      }
      if (!part->second.members.try_emplace(*guid, flags).second) {
        return bad(
            fmt::format("member 0x{} of {} is listed twice", guid_text(*guid), pkey_text(*pkey)));
      }
    } else {
      return bad(fmt::format("unknown entry \"{}\"", words[0].substr(0, 32)));
    }
  }
  if (!have_version) {
    return fail(kErrRestStateFile,
                fmt::format("{}: no \"ibsm-rest-state <version>\" line", file_name));
  }
  std::erase_if(state.partitions, [](const auto& p) { return p.second.members.empty(); });
  return state;
}

Result<ApiState> load_state(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) && !ec) return ApiState{};  // the first start
  auto text = read_file(path);
  if (!text) return fail(kErrRestStateFile, text.error().message);
  return parse_state(*text, path);
}

Status save_state(const std::string& path, const ApiState& state) {
  return write_file_atomically(path, format_state(state), AtomicWriteOptions{.mode = 0644});
}

}  // namespace ibsm::rest
