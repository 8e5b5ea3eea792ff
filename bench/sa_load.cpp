// sa_load: SA PathRecord load generator (docs/benchmarks.md), libibumad only.
//
// Sends PathRecord Gets (component mask SGID|DGID, what libibmad and the
// diags send) for random pairs of end ports, keeping N requests outstanding,
// until a count or a duration is reached; prints answers/s and the mean and
// worst round trip. Its own TIDs are matched on the low 32 bits only (the
// kernel, and umad2sim/ibsim, rewrite the upper half).
//
//   sa_load [--outstanding N] [--count N | --duration S] [--timeout-ms MS]
//           [--guids FILE | --nodes-from-sa MAXLID] [--seed N] [--warmup N]
//
// --guids FILE: port GUIDs, one per line (0x... or decimal); --nodes-from-sa:
// asks the SA for NodeRecords of LIDs 1..MAXLID (Get by LID) and keeps the CA
// ports. The last line is machine readable: "RESULT key=value ...".
#include <infiniband/umad.h>

#include "sa_umad_client.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace {

using namespace ibsm::bench;  // NOLINT(google-build-using-namespace): one program

using Clock = std::chrono::steady_clock;

constexpr std::uint16_t kAttrNodeRecord = 0x0011;
constexpr std::uint16_t kAttrPathRecord = 0x0035;
constexpr std::uint8_t kGet = 0x01;
constexpr std::uint64_t kMaskDgid = 1u << 2;
constexpr std::uint64_t kMaskSgid = 1u << 3;
constexpr std::uint64_t kMaskLid = 1u << 0;

struct Options {
  int outstanding = 1;
  long count = 20000;
  double duration = 0;  // seconds; 0: use count
  int timeout_ms = 1000;
  std::string guids_file;
  int nodes_from_sa = 0;
  unsigned seed = 1;
  long warmup = 200;
};

void sa_header(std::uint8_t* mad, std::uint16_t attr, std::uint32_t tid, std::uint64_t mask) {
  mad[0] = 1;
  mad[1] = kClassSa;
  mad[2] = kClassVersion;
  mad[3] = kGet;
  put64(mad + 8, tid);
  put16(mad + 16, attr);
  put64(mad + 48, mask);
}

// NodeRecord Get for every LID up to max_lid, pipelined; CA port GUIDs.
std::vector<std::uint64_t> guids_from_sa(SaPort& sa, int max_lid, int timeout_ms) {
  std::vector<std::uint64_t> out;
  constexpr int kWindow = 32;
  int next = 1;
  int inflight = 0;
  std::unordered_map<std::uint32_t, Clock::time_point> sent;
  auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  while (next <= max_lid || inflight > 0) {
    while (inflight < kWindow && next <= max_lid) {
      std::uint8_t* mad = sa.fresh_mad();
      const auto tid = static_cast<std::uint32_t>(0x4E000000u + static_cast<unsigned>(next));
      sa_header(mad, kAttrNodeRecord, tid, kMaskLid);
      put16(mad + kHeader, static_cast<std::uint16_t>(next));
      if (!sa.send(timeout_ms)) die("umad_send failed");
      sent[tid] = Clock::now();
      ++inflight;
      ++next;
      deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    }
    int len = 0;
    const std::uint8_t* r = sa.recv(10, len);
    if (r == nullptr) {
      if (Clock::now() > deadline) break;  // the rest are unanswered LIDs
      continue;
    }
    const auto tid = static_cast<std::uint32_t>(get64(r + 8));
    if (sent.erase(tid) == 0) continue;
    --inflight;
    if (get16(r + 4) != 0 || len < static_cast<int>(kHeader + 108)) continue;
    const std::uint8_t* rec = r + kHeader;
    if (rec[6] == 1) out.push_back(get64(rec + 24));  // NodeType CA: its PortGUID
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

struct Stats {
  long answers = 0;
  long errors = 0;  // answered with a non-zero status
  long lost = 0;    // no answer within the timeout
  long stray = 0;   // responses to nothing outstanding
  double sum_us = 0;
  double worst_us = 0;
  std::vector<float> lat_us;
};

int usage() {
  std::fprintf(stderr,
               "usage: sa_load [--outstanding N] [--count N | --duration S] [--timeout-ms MS]\n"
               "               [--guids FILE | --nodes-from-sa MAXLID] [--seed N] [--warmup N]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) die("missing value");
      return argv[++i];
    };
    if (a == "--outstanding")
      opt.outstanding = std::atoi(value());
    else if (a == "--count")
      opt.count = std::atol(value());
    else if (a == "--duration")
      opt.duration = std::atof(value());
    else if (a == "--timeout-ms")
      opt.timeout_ms = std::atoi(value());
    else if (a == "--guids")
      opt.guids_file = value();
    else if (a == "--nodes-from-sa")
      opt.nodes_from_sa = std::atoi(value());
    else if (a == "--seed")
      opt.seed = static_cast<unsigned>(std::atoi(value()));
    else if (a == "--warmup")
      opt.warmup = std::atol(value());
    else
      return usage();
  }
  if (opt.outstanding < 1 || (opt.guids_file.empty() && opt.nodes_from_sa <= 0)) return usage();

  SaPort sa;
  const std::vector<std::uint64_t> guids =
      opt.guids_file.empty() ? guids_from_sa(sa, opt.nodes_from_sa, opt.timeout_ms)
                             : read_guids(opt.guids_file);
  if (guids.size() < 2) die("fewer than 2 end ports to pair");
  const std::uint64_t prefix = sa.gid_prefix() != 0 ? sa.gid_prefix() : 0xfe80000000000000ull;

  std::mt19937_64 rng(opt.seed);
  std::uniform_int_distribution<std::size_t> pick(0, guids.size() - 1);
  std::uint32_t next_tid = 0x50000000u;
  std::unordered_map<std::uint32_t, Clock::time_point> pending;
  pending.reserve(static_cast<std::size_t>(opt.outstanding) * 2);

  auto send_one = [&]() {
    const std::size_t s = pick(rng);
    std::size_t d = pick(rng);
    while (d == s)
      d = pick(rng);
    std::uint8_t* mad = sa.fresh_mad();
    const std::uint32_t tid = next_tid++;
    sa_header(mad, kAttrPathRecord, tid, kMaskSgid | kMaskDgid);
    std::uint8_t* rec = mad + kHeader;
    put64(rec + 8, prefix);  // DGID
    put64(rec + 16, guids[d]);
    put64(rec + 24, prefix);  // SGID
    put64(rec + 32, guids[s]);
    if (!sa.send(opt.timeout_ms)) die("umad_send failed");
    pending[tid] = Clock::now();
  };

  Stats st;
  st.lat_us.reserve(opt.count > 0 ? static_cast<std::size_t>(opt.count) : 1u << 20);
  const long total = opt.duration > 0 ? -1 : opt.count;
  long issued = 0;
  long warm_left = opt.warmup;
  Clock::time_point t0 = Clock::now();
  Clock::time_point stop_at =
      t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(opt.duration));
  bool measuring = warm_left <= 0;
  auto may_issue = [&]() {
    if (!measuring) return true;
    if (total >= 0) return issued < total;
    return Clock::now() < stop_at;
  };

  for (int i = 0; i < opt.outstanding; ++i) {
    send_one();
    if (measuring) ++issued;
  }
  const auto timeout = std::chrono::milliseconds(opt.timeout_ms);
  Clock::time_point last_sweep = Clock::now();
  while (!pending.empty()) {
    int len = 0;
    const std::uint8_t* r = sa.recv(opt.timeout_ms, len);
    const Clock::time_point now = Clock::now();
    int refill = 0;
    if (r != nullptr && (r[3] & 0x80) != 0) {
      const auto tid = static_cast<std::uint32_t>(get64(r + 8));
      auto it = pending.find(tid);
      if (it == pending.end()) {
        ++st.stray;
      } else {
        const double us = std::chrono::duration<double, std::micro>(now - it->second).count();
        pending.erase(it);
        ++refill;
        if (!measuring) {
          if (--warm_left <= 0) {
            measuring = true;
            t0 = now;
            stop_at = t0 + std::chrono::duration_cast<Clock::duration>(
                               std::chrono::duration<double>(opt.duration));
          }
        } else {
          ++st.answers;
          if (get16(r + 4) != 0) ++st.errors;
          st.sum_us += us;
          st.worst_us = std::max(st.worst_us, us);
          st.lat_us.push_back(static_cast<float>(us));
        }
      }
    }
    if (now - last_sweep > timeout / 4) {  // requests nobody answered
      last_sweep = now;
      for (auto it = pending.begin(); it != pending.end();) {
        if (now - it->second > timeout) {
          it = pending.erase(it);
          if (measuring) ++st.lost;
          ++refill;
        } else {
          ++it;
        }
      }
    }
    for (; refill > 0 && may_issue(); --refill) {
      send_one();
      if (measuring) ++issued;
    }
  }
  const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  std::sort(st.lat_us.begin(), st.lat_us.end());
  const double p50 = st.lat_us.empty() ? 0 : st.lat_us[st.lat_us.size() / 2];
  const double p99 = st.lat_us.empty() ? 0 : st.lat_us[st.lat_us.size() * 99 / 100];
  const double mean = st.answers > 0 ? st.sum_us / static_cast<double>(st.answers) : 0;
  const double rate = secs > 0 ? static_cast<double>(st.answers) / secs : 0;
  std::printf(
      "ports %zu outstanding %d: %ld answers in %.3f s = %.0f/s, mean %.1f us, p50 %.1f us, "
      "p99 %.1f us, worst %.1f us; %ld errors, %ld lost, %ld stray\n",
      guids.size(), opt.outstanding, st.answers, secs, rate, mean, p50, p99, st.worst_us, st.errors,
      st.lost, st.stray);
  std::printf(
      "RESULT ports=%zu outstanding=%d answers=%ld seconds=%.4f rate=%.1f mean_us=%.1f "
      "p50_us=%.1f p99_us=%.1f worst_us=%.1f errors=%ld lost=%ld stray=%ld\n",
      guids.size(), opt.outstanding, st.answers, secs, rate, mean, p50, p99, st.worst_us, st.errors,
      st.lost, st.stray);
  return st.answers > 0 ? 0 : 1;
}
