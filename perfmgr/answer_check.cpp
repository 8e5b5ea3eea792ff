#include "perfmgr/answer_check.hpp"

namespace ibsm::perfmgr {

mad::Mismatch pm_answer_mismatch(const mad::SentMad& sent, std::optional<std::uint8_t> port_select,
                                 std::span<const std::uint8_t> bytes, mad::Lid slid) {
  const mad::Mismatch m = mad::match_answer(sent, mad::ReceivedMad{bytes, slid});
  if (m != mad::Mismatch::kNone) return m;
  // PerfMgt data starts at byte 64 (IBA 16.1.1: 40 reserved bytes after the header);
  // PortSelect is its byte 1.
  constexpr std::size_t kPortSelectAt = 64 + 1;
  if (port_select && bytes.size() > kPortSelectAt && bytes[kPortSelectAt] != *port_select)
    return mad::Mismatch::kPortSelect;
  return mad::Mismatch::kNone;
}

}  // namespace ibsm::perfmgr
