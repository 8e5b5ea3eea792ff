// Runs a fuzz target (LLVMFuzzerTestOneInput) without libFuzzer, with any compiler:
// every file of the paths given (directories are read recursively, in sorted order),
// then `--mutations N` seeded mutants of them (tests/fuzz/mutator.hpp). The unit
// suite runs each target this way; scripts/fuzz.sh runs the real libFuzzer binaries.
//
//   <target>_replay [--mutations N] [--seed S] [--max-len B] [--emit K FILE] PATH...
//
// When an input makes the target abort or a sanitizer report, the input's name
// (seed file, or mutant number) is printed; `--emit K FILE` with the same
// arguments writes mutant K to FILE so it can be replayed alone or given to the
// libFuzzer binary.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/fuzz/mutator.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
// Present only in sanitizer builds: lets us name the input before the process dies.
extern "C" [[gnu::weak]] void __sanitizer_set_death_callback(void (*callback)());

namespace {

using ibsm::fuzz::Bytes;

// What is being run, for the abort handler: a signal handler can only reach
// state through a static, and it may only call write(2).
char g_current[512] = "";

void say_current() {
  const char prefix[] = "\nfuzz replay: the failing input is ";
  (void)!::write(2, prefix, sizeof prefix - 1);
  (void)!::write(2, g_current, std::strlen(g_current));
  (void)!::write(2, "\n", 1);
}

void on_abort(int sig) {
  say_current();
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void set_current(const std::string& what) {
  const std::size_t n = std::min(what.size(), sizeof g_current - 1);
  std::memcpy(g_current, what.data(), n);
  g_current[n] = '\0';
}

Bytes read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

struct Seed {
  std::string name;
  Bytes bytes;
};

std::vector<Seed> collect(const std::vector<std::string>& paths) {
  std::vector<Seed> seeds;
  for (const auto& path : paths) {
    std::vector<std::filesystem::path> files;
    if (std::filesystem::is_directory(path)) {
      for (const auto& e : std::filesystem::recursive_directory_iterator(path))
        if (e.is_regular_file()) files.push_back(e.path());
      std::sort(files.begin(), files.end());  // directory order differs between machines
    } else {
      files.emplace_back(path);
    }
    for (const auto& f : files)
      seeds.push_back({f.string(), read_file(f)});
  }
  return seeds;
}

void run(const Bytes& b) {
  LLVMFuzzerTestOneInput(b.data(), b.size());
}

int usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s [--mutations N] [--seed S] [--max-len B] [--emit K FILE] PATH...\n",
               argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t mutations = 0;
  std::uint64_t seed = 1;
  std::size_t max_len = 0;  // 0: twice the longest seed, at least 512 bytes
  long long emit = -1;
  std::string emit_file;
  std::vector<std::string> paths;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto number = [&]() { return i + 1 < argc ? std::strtoull(argv[++i], nullptr, 0) : 0ull; };
    if (a == "--mutations") {
      mutations = number();
    } else if (a == "--seed") {
      seed = number();
    } else if (a == "--max-len") {
      max_len = number();
    } else if (a == "--emit" && i + 2 < argc) {
      emit = static_cast<long long>(number());
      emit_file = argv[++i];
    } else if (a.starts_with("--")) {
      return usage(argv[0]);
    } else {
      paths.push_back(a);
    }
  }
  const std::vector<Seed> seeds = collect(paths);
  if (seeds.empty()) return usage(argv[0]);
  if (max_len == 0) {
    for (const auto& s : seeds)
      max_len = std::max(max_len, 2 * s.bytes.size());
    max_len = std::max<std::size_t>(max_len, 512);
  }

  ::signal(SIGABRT, on_abort);
  if (__sanitizer_set_death_callback) {
    __sanitizer_set_death_callback(say_current);  // the sanitizer reports the crash first
  } else {
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL})
      ::signal(sig, on_abort);
  }

  if (emit < 0) {
    for (const auto& s : seeds) {
      set_current("seed " + s.name);
      run(s.bytes);
    }
  }
  ibsm::fuzz::Rng rng(seed);
  for (std::uint64_t k = 0; k < mutations || static_cast<long long>(k) <= emit; ++k) {
    const Seed& base = seeds[rng.below(seeds.size())];
    const Seed& other = seeds[rng.below(seeds.size())];
    const Bytes input = ibsm::fuzz::mutate(base.bytes, other.bytes, rng, max_len);
    if (static_cast<long long>(k) == emit) {
      std::ofstream(emit_file, std::ios::binary)
          .write(reinterpret_cast<const char*>(input.data()),
                 static_cast<std::streamsize>(input.size()));
      std::printf("wrote mutant %lld (of %s, %zu bytes) to %s\n", emit, base.name.c_str(),
                  input.size(), emit_file.c_str());
      return 0;
    }
    set_current("mutant " + std::to_string(k) + " of " + base.name + " (--seed " +
                std::to_string(seed) + "; write it out with --emit " + std::to_string(k) +
                " FILE)");
    run(input);
  }
  std::printf("replayed %zu seeds and %llu mutants (seed %llu)\n", seeds.size(),
              static_cast<unsigned long long>(mutations), static_cast<unsigned long long>(seed));
  return 0;
}
