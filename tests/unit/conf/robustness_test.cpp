// Garbage in: every reader returns a value or an error, never crashes, and an
// error always names where.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "conf/opensm_conf_reader.hpp"
#include "conf/option_table.hpp"
#include "conf/toml_reader.hpp"
#include "conf/toml_writer.hpp"
#include "test_util.hpp"

namespace ibsm::conf {
namespace {

const std::vector<std::string> kTokens = {
    "TRUE", "FALSE",   "(null)", "0x", "0x1f", "-1",       "18446744073709551616",
    "077",  "08",      "",       "\"", "'",    "#",        "both",
    "1:2,", ":",       " ",      "\t", "\r",   "\xff\xfe", "0 0",
    "=",    "[device]"};

std::string random_conf(std::mt19937& rng) {
  const auto rows = option_rows();
  std::string text;
  const int lines = std::uniform_int_distribution<int>(0, 20)(rng);
  for (int i = 0; i < lines; ++i) {
    if (rng() % 4 == 0) {
      text += kTokens[rng() % kTokens.size()];
    } else {
      text += std::string(rows[rng() % rows.size()].key);
    }
    const int parts = std::uniform_int_distribution<int>(0, 3)(rng);
    for (int p = 0; p < parts; ++p)
      text += " " + kTokens[rng() % kTokens.size()];
    text += rng() % 10 == 0 ? std::string(1, static_cast<char>(rng() % 256)) : "";
    text += '\n';
  }
  return text;
}

TEST(Robustness, RandomOpensmConfNeverCrashesAndErrorsNameTheLine) {
  std::mt19937 rng(20260522);
  int errors = 0;
  for (int i = 0; i < 3000; ++i) {
    Options o;
    auto r = apply_opensm_conf(random_conf(rng), "fuzz.conf", o, rng() % 2 == 0);
    if (!r.ok()) {
      ++errors;
      EXPECT_THAT(r.error().message, ::testing::StartsWith("fuzz.conf:"));
    }
  }
  EXPECT_GT(errors, 0);  // the generator does produce bad input
}

TEST(Robustness, MutatedTomlNeverCrashesAndErrorsNameThePosition) {
  std::mt19937 rng(7);
  const std::string valid = write_toml(Options{});
  int errors = 0;
  for (int i = 0; i < 300; ++i) {
    std::string text = valid;
    const int edits = std::uniform_int_distribution<int>(1, 5)(rng);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = rng() % text.size();
      const std::string& tok = kTokens[rng() % kTokens.size()];
      if (rng() % 2) {
        text.replace(at, std::min<std::size_t>(tok.size() + 1, text.size() - at), tok);
      } else {
        text.insert(at, tok);
      }
    }
    Options o;
    auto r = apply_toml(text, "fuzz.toml", o);
    if (!r.ok()) {
      ++errors;
      EXPECT_THAT(r.error().message, ::testing::StartsWith("fuzz.toml:"));
    }
  }
  EXPECT_GT(errors, 0);
}

TEST(Robustness, RandomCommandLinesNeverCrash) {
  std::mt19937 rng(99);
  const std::vector<std::string> words = {
      "-",           "--", "-p",   "-vvv", "-once", "--con", "-?",        "-s10", "-g", "zz",
      "--priority=", "-D", "0xff", "-R",   "-c",    "-F",    "--convert", "-d",   "2",  "-Q"};
  for (int i = 0; i < 2000; ++i) {
    std::vector<std::string> args;
    const int n = std::uniform_int_distribution<int>(0, 6)(rng);
    for (int k = 0; k < n; ++k)
      args.push_back(words[rng() % words.size()]);
    auto r = testing::invoke(args);
    if (!r.ok()) {
      EXPECT_EQ(r.error().id.code / 1000, 5) << r.error().message;  // a conf error ID
      EXPECT_FALSE(r.error().message.empty());
    }
  }
}

}  // namespace
}  // namespace ibsm::conf
