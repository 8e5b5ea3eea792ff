// The SA under fuzzing: two SMs swept on the small fake fabric (one whose transport
// has kernel RMPP, one that carries single MADs, as umad2sim), a partitions.conf
// with several partitions and multicast groups, and the judge of every answer: one
// well-formed SA MAD of the right length, method and framing, carrying the
// request's TID, or nothing at all. Shared by the libFuzzer target (fuzz_sa.cpp)
// and the deterministic generator run in the unit suite (fuzz_sa_replay.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tests/unit/sa/sa_fixture.hpp"

namespace ibsm::satest {

class FuzzHarness {
 public:
  FuzzHarness();
  ~FuzzHarness();

  // Hands `mad` to the SA as if it came from `slid` (with `status` as the kernel
  // reports it) on the RMPP rig or the single-MAD one. Returns what is wrong with
  // the answer, or an empty string.
  std::string feed(std::span<const std::uint8_t> mad, mad::Lid slid, bool kernel_rmpp,
                   int status = 0);
  bool last_answered() const { return last_answered_; }
  const std::vector<std::uint8_t>& last_answer() const { return last_answer_; }

  SaRig& rig(bool kernel_rmpp) { return kernel_rmpp ? *kernel_ : *single_; }
  // LIDs of the fabric's ports: CAs first, then switches.
  const std::vector<mad::Lid>& ca_lids() const { return ca_lids_; }
  const std::vector<mad::Lid>& switch_lids() const { return switch_lids_; }

  // Values of this fabric worth putting into records, by width in bytes (2: LIDs,
  // MLIDs, P_Keys; 4: Q_Keys; 8: GUIDs; 16: GIDs and MGIDs).
  const std::vector<std::vector<std::uint8_t>>& dictionary(std::size_t bytes) const;

 private:
  std::unique_ptr<SaRig> kernel_;
  std::unique_ptr<SaRig> single_;
  std::vector<mad::Lid> ca_lids_;
  std::vector<mad::Lid> switch_lids_;
  std::vector<std::vector<std::uint8_t>> dict_[17];
  bool last_answered_ = false;
  std::vector<std::uint8_t> last_answer_;
};

// The process-wide harness (built on first use).
FuzzHarness& fuzz_harness();

// What is wrong with `answer` as the SA's response to `request` (which the kernel
// delivered with `status`) on a transport with or without RMPP; empty when nothing.
std::string judge_sa_answer(std::span<const std::uint8_t> request, int status,
                            std::span<const std::uint8_t> answer, bool kernel_rmpp);

// "01 03 02 ..." for logs.
std::string hex(std::span<const std::uint8_t> bytes);

}  // namespace ibsm::satest
