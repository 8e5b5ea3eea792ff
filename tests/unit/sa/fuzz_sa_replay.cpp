// The SA fuzz target in the unit suite (any compiler): replays the seed corpus
// through LLVMFuzzerTestOneInput, then, for every attribute the SA serves (and for
// attributes it does not), generates a fixed number of random and mutated MADs
// from a seeded PRNG: valid headers with random methods, class versions, SM_Keys,
// component masks, AttributeOffsets and RMPP headers; records built from the
// fabric's real LIDs, GUIDs, GIDs and MGIDs, from real records the SA answered,
// or random; truncated, header-only and over-long messages. Every answer is judged
// (fuzz_harness.cpp); nothing may crash, hang or grow memory without bound.
//
// Each attribute runs in a child process, so a crash or a hang in one record
// handler is reported with the MAD that caused it (regenerated from the seed and
// written to a file) while the other attributes still run.
//
//   sa_fuzz_replay [--per-attribute N] [--seed S] [--only 0xID] [--timeout SEC]
//                  [--memory-limit-mb MB] [--failures DIR] CORPUS_DIR...
// (under ASan the allocator's quarantine, 256 MB by default, counts as growth, so the
// default limit is 1 GB there: a leak of a few bytes per MAD still shows over 10^6 MADs).
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define IBSM_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define IBSM_UNDER_ASAN 1
#endif
#endif

#include "sa/handlers.hpp"
#include "sa/record_layout.hpp"
#include "sa/sa_mad.hpp"
#include "tests/unit/sa/fuzz_harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

#ifdef IBSM_UNDER_ASAN
constexpr long kDefaultMemoryLimitMb = 1024;
#else
constexpr long kDefaultMemoryLimitMb = 256;
#endif

using namespace ibsm;
using Bytes = std::vector<std::uint8_t>;

constexpr std::uint16_t kUnknownAttrs = 0xffff;  // pseudo attribute: IDs the SA does not serve
constexpr std::uint64_t kSaKey = 1;              // sa_key of the rigs (OpenSM's default)

// splitmix64: one state word, good enough spread, and cheap to seed per MAD so any
// MAD of a run can be regenerated from (seed, attribute, index).
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  std::uint64_t below(std::uint64_t n) { return n == 0 ? 0 : next() % n; }
  bool chance(unsigned percent) { return below(100) < percent; }
  std::uint8_t byte() { return static_cast<std::uint8_t>(next()); }
};

struct Generated {
  Bytes mad;
  sa::Lid slid = 0;
  bool kernel_rmpp = true;
  int status = 0;
};

// Real records the SA answered for an attribute (trusted GetTable of everything),
// as starting points that match something.
using Harvest = std::map<std::uint16_t, std::vector<Bytes>>;

Bytes header(std::uint8_t method, std::uint16_t attr, std::uint64_t mask, std::uint64_t key) {
  Bytes b(sa::kMadSize, 0);
  sa::SaHeader h;
  h.method = method;
  h.tid = 0x1234;
  h.attr_id = attr;
  h.sm_key = key;
  h.comp_mask = mask;
  sa::encode_header(h, b);
  return b;
}

Harvest harvest(const std::vector<std::uint16_t>& attrs) {
  Harvest out;
  auto& h = satest::fuzz_harness();
  for (std::uint16_t a : attrs) {
    for (std::uint8_t m : {sa::method::kGetTable, sa::method::kGet}) {
      (void)h.feed(header(m, a, 0, kSaKey), h.ca_lids().front(), true);
      const Bytes& ans = h.last_answer();
      if (ans.size() <= sa::kHeaderSize) continue;
      const std::size_t size = std::size_t{sa::decode_header(ans).attr_offset} * 8;
      if (size == 0) continue;
      for (std::size_t off = sa::kHeaderSize; off + size <= ans.size(); off += size)
        out[a].emplace_back(ans.begin() + static_cast<std::ptrdiff_t>(off),
                            ans.begin() + static_cast<std::ptrdiff_t>(off + size));
    }
  }
  return out;
}

// A value for a field: from the fabric's dictionary when the width fits one, else
// extremes or random bits.
void fill_field(Rng& rng, Bytes& rec, const sa::Field& f) {
  const auto& h = satest::fuzz_harness();
  const bool aligned = f.bit_offset % 8 == 0 && f.bit_width % 8 == 0;
  const std::size_t off = f.bit_offset / 8;
  const std::size_t len = f.bit_width / 8;
  if (aligned && off + len <= rec.size()) {
    const auto& dict = h.dictionary(len);
    if (!dict.empty() && rng.chance(75)) {
      const Bytes& v = dict[rng.below(dict.size())];
      std::copy(v.begin(), v.end(), rec.begin() + static_cast<std::ptrdiff_t>(off));
      return;
    }
    if (f.bit_width > 64) {
      for (std::size_t i = 0; i < len; ++i)
        rec[off + i] = rng.chance(50) ? rng.byte() : 0;
      return;
    }
  }
  if (f.bit_width > 64) return;
  const std::uint64_t all = f.bit_width >= 64 ? ~0ull : (1ull << f.bit_width) - 1;
  std::uint64_t v = rng.next() & all;
  switch (rng.below(4)) {
    case 0:
      v = 0;
      break;
    case 1:
      v = all;
      break;
    case 2:
      v = rng.below(8) & all;
      break;
    default:
      break;
  }
  sa::set_field(rec, f, v);
}

std::uint64_t field_bits(Rng& rng, const sa::RecordLayout& layout, unsigned percent) {
  std::uint64_t mask = 0;
  for (std::size_t i = 0; i < layout.fields.size() && i < 64; ++i)
    if (rng.chance(percent)) mask |= 1ull << i;
  return mask;
}

Generated generate(std::uint16_t run_attr, std::uint64_t seed, std::uint64_t index,
                   const Harvest& harvested) {
  Rng rng{seed ^ (std::uint64_t{run_attr} << 40) ^ (index * 0x2545f4914f6cdd1dull)};
  (void)rng.next();
  auto& h = satest::fuzz_harness();
  Generated g;
  std::uint16_t attr = run_attr;
  if (run_attr == kUnknownAttrs || rng.chance(2)) {
    do {
      attr = static_cast<std::uint16_t>(rng.chance(50) ? rng.below(0x100) : rng.next());
    } while (run_attr == kUnknownAttrs && sa::find_attr(attr) != nullptr);
  }
  const sa::RecordLayout* layout = sa::find_layout(attr);

  // The record and the component mask.
  Bytes rec(sa::kDataSize, 0);
  std::uint64_t mask = 0;
  const unsigned mode = static_cast<unsigned>(rng.below(100));
  const auto hv = harvested.find(attr);
  if (mode < 35 && layout != nullptr && !layout->fields.empty()) {
    const std::size_t k = 1 + rng.below(4);
    for (std::size_t i = 0; i < k; ++i) {
      const std::size_t fi = rng.below(std::min<std::size_t>(layout->fields.size(), 64));
      fill_field(rng, rec, layout->fields[fi]);
      mask |= 1ull << fi;
    }
  } else if (mode < 60 && hv != harvested.end() && !hv->second.empty()) {
    const Bytes& real = hv->second[rng.below(hv->second.size())];
    std::copy_n(real.begin(), std::min(real.size(), rec.size()), rec.begin());
    mask = layout != nullptr ? field_bits(rng, *layout, rng.chance(20) ? 100 : 30) : rng.next();
    for (std::size_t flips = rng.below(4); flips > 0; --flips)
      rec[rng.below(real.size())] ^= static_cast<std::uint8_t>(1u << rng.below(8));
  } else if (mode < 75) {
    for (auto& x : rec)
      x = rng.byte();
    mask = rng.next();
  } else if (mode < 85) {
    mask = rng.chance(50) ? 0 : ~0ull;
  } else {
    for (auto& x : rec)
      x = rng.chance(30) ? rng.byte() : 0;
    mask = layout != nullptr ? field_bits(rng, *layout, 20) : rng.next() & rng.next();
  }
  if (rng.chance(15)) mask |= 1ull << rng.below(64);

  // The header.
  static constexpr std::array<std::uint8_t, 16> kMethods = {
      sa::method::kGet,       sa::method::kGet,      sa::method::kGet,
      sa::method::kGetTable,  sa::method::kGetTable, sa::method::kGetTable,
      sa::method::kSet,       sa::method::kSet,      sa::method::kDelete,
      sa::method::kDelete,    sa::method::kGetMulti, sa::method::kGetTraceTable,
      sa::method::kReport,    0x03 /* Send */,       sa::method::kGetResp,
      sa::method::kReportResp};
  sa::SaHeader hd;
  hd.base_version = rng.chance(98) ? sa::kBaseVersion : rng.byte();
  hd.mgmt_class = rng.chance(98) ? sa::kClassSubnAdm : rng.byte();
  hd.class_version = rng.chance(92) ? sa::kClassVersion : (rng.chance(50) ? 1 : rng.byte());
  hd.method = rng.chance(85) ? kMethods[rng.below(kMethods.size())] : rng.byte();
  hd.status = rng.chance(95) ? 0 : static_cast<std::uint16_t>(rng.next());
  hd.tid = rng.next();
  hd.attr_id = attr;
  switch (rng.below(8)) {
    case 0:
      hd.attr_mod = 0x80000000u;
      break;
    case 1:
      hd.attr_mod = static_cast<std::uint32_t>(rng.below(256));
      break;
    case 2:
      hd.attr_mod = static_cast<std::uint32_t>(rng.next());
      break;
    default:
      hd.attr_mod = 0;
      break;
  }
  if (rng.chance(20)) {
    hd.rmpp_version = rng.chance(50) ? 1 : rng.byte();
    hd.rmpp_type = static_cast<std::uint8_t>(rng.below(6));
    hd.rmpp_resp_time = static_cast<std::uint8_t>(rng.below(32));
    hd.rmpp_flags = static_cast<std::uint8_t>(rng.below(8));
    hd.rmpp_status = rng.chance(80) ? 0 : rng.byte();
    hd.rmpp_segment = rng.chance(50) ? static_cast<std::uint32_t>(rng.below(3))
                                     : static_cast<std::uint32_t>(rng.next());
    hd.rmpp_length = rng.chance(50) ? static_cast<std::uint32_t>(rng.below(1024))
                                    : static_cast<std::uint32_t>(rng.next());
  }
  const unsigned key = static_cast<unsigned>(rng.below(100));
  hd.sm_key = key < 55 ? 0 : key < 90 ? kSaKey : rng.next();
  switch (rng.below(4)) {
    case 0:
      hd.attr_offset = layout != nullptr ? layout->words() : 0;
      break;
    case 1:
      hd.attr_offset = static_cast<std::uint16_t>(rng.next());
      break;
    default:
      hd.attr_offset = 0;
      break;
  }
  hd.comp_mask = mask;

  Bytes mad(sa::kMadSize, 0);
  sa::encode_header(hd, mad);
  std::copy(rec.begin(), rec.end(), mad.begin() + sa::kHeaderSize);
  const unsigned len = static_cast<unsigned>(rng.below(100));
  if (len < 5) {
    mad.resize(rng.below(sa::kHeaderSize));
  } else if (len < 10) {
    mad.resize(sa::kHeaderSize);
  } else if (len < 20) {
    mad.resize(sa::kHeaderSize + rng.below(sa::kDataSize));
  } else if (len < 30) {
    const std::size_t extra = 1 + rng.below(1800);
    const bool random_tail = rng.chance(50);
    for (std::size_t i = 0; i < extra; ++i)
      mad.push_back(random_tail ? rng.byte() : 0);
  }
  if (rng.chance(5)) {
    for (std::size_t flips = 1 + rng.below(8); flips > 0 && !mad.empty(); --flips)
      mad[rng.below(mad.size())] ^= static_cast<std::uint8_t>(1u << rng.below(8));
  }
  g.mad = std::move(mad);

  const unsigned who = static_cast<unsigned>(rng.below(100));
  if (who < 75) {
    g.slid = h.ca_lids()[rng.below(h.ca_lids().size())];
  } else if (who < 85) {
    g.slid = h.switch_lids()[rng.below(h.switch_lids().size())];
  } else {
    static constexpr std::array<sa::Lid, 4> kStrangers = {0, 0x00ee, 0xbfff, 0xffff};
    g.slid = rng.chance(50) ? kStrangers[rng.below(kStrangers.size())]
                            : static_cast<sa::Lid>(rng.next());
  }
  g.kernel_rmpp = rng.chance(70);
  g.status = rng.chance(99) ? 0 : 110;  // ETIMEDOUT: a send the kernel gave up on
  return g;
}

long rss_kb() {
  std::ifstream statm("/proc/self/statm");
  long size = 0, resident = 0;
  statm >> size >> resident;
  return resident * (::sysconf(_SC_PAGESIZE) / 1024);
}

// What a child reports through shared memory.
struct Progress {
  std::uint64_t index = 0;  // the MAD being handled
  std::uint64_t answered = 0;
  std::uint64_t problems = 0;
  long rss_growth_kb = 0;
};

struct Options {
  std::uint64_t per_attribute = 1000000;
  std::uint64_t seed = 0x5a5a2024;
  int only = -1;
  unsigned timeout_s = 300;
  long memory_limit_kb = kDefaultMemoryLimitMb * 1024;  // RSS growth allowed per attribute run
  std::string failures;
  std::vector<std::string> corpus;
};

std::string attr_label(std::uint16_t a) {
  char buf[64];
  if (a == kUnknownAttrs) return "unserved attributes";
  std::snprintf(buf, sizeof buf, "0x%04x %.*s", a, static_cast<int>(sa::attr_name(a).size()),
                sa::attr_name(a).data());
  return buf;
}

void save(const Options& o, std::uint16_t attr, std::uint64_t index, const Generated& g,
          const std::string& why) {
  std::fprintf(stderr, "  %s: MAD #%llu from LID %u (%s%s): %s\n    %s\n", attr_label(attr).c_str(),
               static_cast<unsigned long long>(index), g.slid,
               g.kernel_rmpp ? "kernel RMPP" : "single MADs", g.status != 0 ? ", status 110" : "",
               why.c_str(), satest::hex(g.mad).c_str());
  if (o.failures.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(o.failures, ec);
  char name[96];
  std::snprintf(name, sizeof name, "/sa-%04x-%llu.mad", attr,
                static_cast<unsigned long long>(index));
  std::ofstream(o.failures + name, std::ios::binary)
      .write(reinterpret_cast<const char*>(g.mad.data()),
             static_cast<std::streamsize>(g.mad.size()));
}

// The child's loop: returns the exit status.
int run_attribute(const Options& o, std::uint16_t attr, const Harvest& hv, Progress* p) {
  auto& h = satest::fuzz_harness();
  const long base = rss_kb();
  unsigned printed = 0;
  for (std::uint64_t i = 0; i < o.per_attribute; ++i) {
    p->index = i;
    const Generated g = generate(attr, o.seed, i, hv);
    std::string problem = h.feed(g.mad, g.slid, g.kernel_rmpp, g.status);
    if (h.last_answered()) ++p->answered;
    if (problem.empty() && h.last_answered() && g.mad.size() >= sa::kHeaderSize &&
        sa::find_attr(sa::decode_header(g.mad).attr_id) == nullptr)
      problem = "answered an attribute the SA does not serve";
    if (!problem.empty()) {
      ++p->problems;
      if (printed++ < 5) save(o, attr, i, g, problem);
    }
    if ((i & 0xffff) == 0xffff) {
      p->rss_growth_kb = std::max(p->rss_growth_kb, rss_kb() - base);
      if (p->rss_growth_kb > o.memory_limit_kb) {
        std::fprintf(stderr, "  %s: memory grew by %ld MB after %llu MADs\n",
                     attr_label(attr).c_str(), p->rss_growth_kb / 1024,
                     static_cast<unsigned long long>(i + 1));
        return 3;
      }
    }
  }
  p->rss_growth_kb = std::max(p->rss_growth_kb, rss_kb() - base);
  return p->problems == 0 ? 0 : 1;
}

bool parse_args(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--per-attribute" && has_value) {
      o.per_attribute = std::strtoull(argv[++i], nullptr, 0);
    } else if (a == "--seed" && has_value) {
      o.seed = std::strtoull(argv[++i], nullptr, 0);
    } else if (a == "--only" && has_value) {
      o.only = static_cast<int>(std::strtol(argv[++i], nullptr, 0));
    } else if (a == "--timeout" && has_value) {
      o.timeout_s = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 0));
    } else if (a == "--memory-limit-mb" && has_value) {
      o.memory_limit_kb = std::strtol(argv[++i], nullptr, 0) * 1024;
    } else if (a == "--failures" && has_value) {
      o.failures = argv[++i];
    } else if (a.starts_with("--")) {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return false;
    } else {
      o.corpus.push_back(a);
    }
  }
  return true;
}

int replay_corpus(const Options& o) {
  int files = 0;
  for (const std::string& dir : o.corpus) {
    std::vector<std::filesystem::path> paths;
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.is_regular_file()) paths.push_back(e.path());
    std::sort(paths.begin(), paths.end());
    for (const auto& path : paths) {
      std::ifstream in(path, std::ios::binary);
      std::ostringstream buffer;
      buffer << in.rdbuf();
      const std::string data = buffer.str();
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(data.data()), data.size());
      ++files;
    }
  }
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse_args(argc, argv, o)) return 2;
  const int files = replay_corpus(o);
  std::printf("replayed %d corpus inputs\n", files);
  if (files == 0) return 1;

  std::vector<std::uint16_t> attrs;
  for (std::uint32_t a = 0; a < 0xffff; ++a)
    if (sa::find_attr(static_cast<std::uint16_t>(a)) != nullptr)
      attrs.push_back(static_cast<std::uint16_t>(a));
  const Harvest hv = harvest(attrs);
  attrs.push_back(kUnknownAttrs);
  if (o.only >= 0) {
    std::erase_if(attrs, [&](std::uint16_t a) { return a != o.only; });
  }

  auto* progress = static_cast<Progress*>(
      ::mmap(nullptr, sizeof(Progress), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  if (progress == MAP_FAILED) return 2;
  std::fflush(stdout);
  int failed = 0;
  const auto start = std::chrono::steady_clock::now();
  for (const std::uint16_t attr : attrs) {
    *progress = Progress{};
    const auto t0 = std::chrono::steady_clock::now();
    const pid_t child = ::fork();
    if (child < 0) return 2;
    if (child == 0) {
      ::alarm(o.timeout_s);  // a hang ends the child with SIGALRM
      ::_exit(run_attribute(o, attr, hv, progress));
    }
    int st = 0;
    ::waitpid(child, &st, 0);
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::string verdict = "ok";
    if (WIFSIGNALED(st)) {
      const int sig = WTERMSIG(st);
      verdict = sig == SIGALRM ? "HANG (no end within --timeout)"
                               : std::string("CRASH (") + strsignal(sig) + ")";
      save(o, attr, progress->index, generate(attr, o.seed, progress->index, hv),
           verdict + " while handling this MAD");
    } else if (WEXITSTATUS(st) == 3) {
      verdict = "MEMORY GROWTH";
    } else if (WEXITSTATUS(st) != 0) {
      verdict = "BAD ANSWERS";
    }
    if (verdict != "ok") ++failed;
    std::printf(
        "%-40s %8llu MADs %8llu answered %6llu problems %6.1f s %+5ld MB  %s\n",
        attr_label(attr).c_str(),
        static_cast<unsigned long long>(WIFSIGNALED(st) ? progress->index : o.per_attribute),
        static_cast<unsigned long long>(progress->answered),
        static_cast<unsigned long long>(progress->problems), secs, progress->rss_growth_kb / 1024,
        verdict.c_str());
    std::fflush(stdout);
  }
  std::printf("%zu attribute runs, %d failed, %.1f s\n", attrs.size(), failed,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return failed == 0 ? 0 : 1;
}
