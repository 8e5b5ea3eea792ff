#include "rest/model.hpp"

#include <spdlog/fmt/fmt.h>

#include "rest/errors.hpp"

namespace ibsm::rest {

std::string_view membership_word(Membership m) {
  return m == Membership::kFull ? "full" : "limited";
}

Effective merge(const AdminPartitions& admin, const ApiState& api) {
  Effective out;
  for (const auto& [pkey, part] : admin) {
    EffectivePartition& e = out[pkey];
    e.name = part.name;
    e.ip_over_ib = part.ip_over_ib;
    for (const auto& [guid, flags] : part.members)
      e.members[guid] = {flags, Source::kAdmin};
  }
  for (const auto& [pkey, part] : api.partitions) {
    auto [it, created] = out.try_emplace(pkey);
    EffectivePartition& e = it->second;
    if (created) {
      e.name = api_partition_name(pkey);
      e.ip_over_ib = part.ip_over_ib;
      e.api_owned = true;
    }
    // try_emplace: a GUID the admin lists keeps the admin's flags.
    for (const auto& [guid, flags] : part.members)
      e.members.try_emplace(guid, EffectiveMember{flags, Source::kApi});
  }
  return out;
}

std::optional<EffectiveMember> find_member(const AdminPartitions& admin, const ApiState& api,
                                           std::uint16_t pkey, std::uint64_t guid) {
  if (auto a = admin.find(pkey); a != admin.end()) {
    if (auto m = a->second.members.find(guid); m != a->second.members.end()) {
      return EffectiveMember{m->second, Source::kAdmin};
    }
  }
  if (auto p = api.partitions.find(pkey); p != api.partitions.end()) {
    if (auto m = p->second.members.find(guid); m != p->second.members.end()) {
      return EffectiveMember{m->second, Source::kApi};
    }
  }
  return std::nullopt;
}

std::string api_partition_name(std::uint16_t pkey) {
  return fmt::format("api_0x{:04x}", pkey);
}

namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool has_0x(std::string_view t) {
  return t.size() >= 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X');
}

}  // namespace

Result<std::uint16_t> parse_pkey(std::string_view text) {
  const auto bad = [&](std::string_view why) {
    return fail(kErrRestBadPkey, fmt::format("pkey \"{}\": {}", text.substr(0, 32), why));
  };
  if (!has_0x(text)) return bad("not a hexadecimal string starting with 0x");
  std::string_view digits = text.substr(2);
  if (digits.empty() || digits.size() > 4) return bad("not 1 to 4 hexadecimal digits after 0x");
  unsigned v = 0;
  for (char c : digits) {
    const int d = hex_digit(c);
    if (d < 0) return bad("not a hexadecimal number");
    v = v * 16 + static_cast<unsigned>(d);
  }
  if (v & 0x8000) {
    return bad(
        "the top bit is the membership, which \"membership\" gives; the P_Key is "
        "0x0001-0x7ffe");
  }
  if (v < kMinPkey || v > kMaxPkey) {
    return bad(v == 0 ? "0x0000 is the invalid P_Key; the P_Key is 0x0001-0x7ffe"
                      : "0x7fff is the default partition, the admin's alone; the P_Key is "
                        "0x0001-0x7ffe");
  }
  return static_cast<std::uint16_t>(v);
}

Result<std::uint64_t> parse_guid(std::string_view text) {
  std::string_view digits = has_0x(text) ? text.substr(2) : text;
  if (digits.size() != 16) {
    return fail(kErrRestBadGuid,
                fmt::format("guid \"{}\": not 16 hexadecimal digits", text.substr(0, 40)));
  }
  std::uint64_t v = 0;
  for (char c : digits) {
    const int d = hex_digit(c);
    if (d < 0) {
      return fail(kErrRestBadGuid,
                  fmt::format("guid \"{}\": not a hexadecimal number", text.substr(0, 40)));
    }
    v = v << 4 | static_cast<std::uint64_t>(d);
  }
  if (v == 0) return fail(kErrRestBadGuid, fmt::format("guid \"{}\": zero", text));
  return v;
}

std::string guid_text(std::uint64_t guid) {
  return fmt::format("{:016x}", guid);
}
std::string pkey_key(std::uint16_t pkey) {
  return fmt::format("0x{:x}", pkey);
}
std::string pkey_text(std::uint16_t pkey) {
  return fmt::format("0x{:04x}", pkey);
}

}  // namespace ibsm::rest
