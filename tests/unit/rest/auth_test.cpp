// rest/basic_auth.hpp, rest/users_file.hpp, rest/login_limiter.hpp: the Authorization
// header as Go's SetBasicAuth writes it, hashes as `openssl passwd -6` writes them, the
// users file's ownership rules, and the failed-login limiter on an injected clock.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "common/clock.hpp"
#include "rest/basic_auth.hpp"
#include "rest/errors.hpp"
#include "rest/login_limiter.hpp"
#include "rest/request_body.hpp"
#include "rest/state_file.hpp"
#include "rest/users_file.hpp"

namespace ibsm::rest {
namespace {

using std::chrono::seconds;

// `openssl passwd -6 -salt abcdefgh secret`
constexpr std::string_view kSecretHash =
    "$6$abcdefgh$ltjgWl6579NluT/Vi1nwEvcil.G5Nbc4NiXZaNGStk8PSwGfQv72N2CKPPrVACtLtip/cZ/1GM/"
    "O6IND4WQhG.";

TEST(BasicAuth, WhatGoSetBasicAuthSends) {
  // base64("admin:123456"), the plugin's README example credentials.
  auto c = parse_basic_authorization("Basic YWRtaW46MTIzNDU2");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->user, "admin");
  EXPECT_EQ(c->password, "123456");
  // The scheme in any case; a password with ':' keeps it; padding.
  auto d = parse_basic_authorization("basic dTpwOnE=");  // u:p:q
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->user, "u");
  EXPECT_EQ(d->password, "p:q");
  auto e = parse_basic_authorization("Basic dTo=");  // "u:" empty password
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->password, "");
}

TEST(BasicAuth, MalformedHeadersAreRefused) {
  for (std::string_view bad : {"", "Basic", "Basic ", "Bearer YWRtaW46MTIzNDU2", "YWRtaW46MTIzNDU2",
                               "Basic YWRtaW46MTIzNDU", "Basic YWRtaW4=MTIz", "Basic YW!taW46",
                               "Basic YWRtaW4=",     // "admin": no ':'
                               "Basic OnBhc3M="}) {  // ":pass": no user
    auto c = parse_basic_authorization(bad);
    EXPECT_FALSE(c.ok()) << bad;
    if (!c.ok()) {
      EXPECT_EQ(c.error().id, kErrRestUnauthorized);
    }
  }
  const std::string huge = "Basic " + std::string(kMaxAuthorizationBytes, 'A');
  auto h = parse_basic_authorization(huge);
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.error().message.find("too long"), std::string::npos);
}

TEST(UsersFile, ParsesOpensslPasswdHashes) {
  auto u = parse_users(std::string("# ib-kubernetes\n\nk8s:") + std::string(kSecretHash) +
                           "\n  ops@site:$5$saltsalt$abcdefghijabcdefghijabcdefghijabcdefghijabc\n",
                       "users");
  ASSERT_TRUE(u.ok()) << u.error().message;
  EXPECT_EQ(u->hashes.size(), 2u);
  EXPECT_TRUE(verify_password(*u, "k8s", "secret"));
  EXPECT_FALSE(verify_password(*u, "k8s", "Secret"));
  EXPECT_FALSE(verify_password(*u, "k8s", ""));
  EXPECT_FALSE(verify_password(*u, "k8s", std::string("secret\0x", 8)));
  EXPECT_FALSE(verify_password(*u, "nobody", "secret"));
}

void expect_bad_users(std::string_view text, std::string_view what) {
  auto u = parse_users(text, "users");
  ASSERT_FALSE(u.ok()) << text;
  EXPECT_EQ(u.error().id, kErrRestUsersFile);
  EXPECT_NE(u.error().message.find(what), std::string::npos) << u.error().message;
}

TEST(UsersFile, BadLinesNameFileAndLine) {
  const std::string good = "a:" + std::string(kSecretHash) + "\n";
  expect_bad_users("\nno-colon\n", "users:2: not user:hash");
  expect_bad_users(":" + std::string(kSecretHash), "users:1: the user name is empty");
  expect_bad_users("a b:" + std::string(kSecretHash), "users:1: the user name has a character");
  expect_bad_users("a:secret\n", "users:1: user a: the hash is not in crypt(3) form");
  expect_bad_users("a:$1$abcdefgh$0123456789012345678901\n", "not in crypt(3) form");  // MD5
  expect_bad_users(good + good, "users:2: user a is listed twice");
}

TEST(UsersFile, OnlyRootOwnedPrivateRegularFiles) {
  EXPECT_TRUE(check_users_file_facts({true, 0, 0100600}, "u").ok());
  EXPECT_TRUE(check_users_file_facts({true, 0, 0100400}, "u").ok());
  for (const FileFacts bad :
       {FileFacts{true, 0, 0100640}, FileFacts{true, 0, 0100604}, FileFacts{true, 0, 0100620},
        FileFacts{true, 1000, 0100600}, FileFacts{false, 0, 0600}}) {
    const Status s = check_users_file_facts(bad, "u");
    ASSERT_FALSE(s.ok()) << bad.mode << " " << bad.uid;
    EXPECT_EQ(s.error().id, kErrRestUsersFileMode);
  }
  EXPECT_NE(check_users_file_facts({true, 0, 0100644}, "u").error().message.find("0644"),
            std::string::npos);
}

TEST(UsersFile, LoadChecksTheOpenFile) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("rest_users_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "users").string();
  std::ofstream(path) << "k8s:" << kSecretHash << "\n";
  ::chmod(path.c_str(), 0644);
  auto loose = load_users_file(path);
  ASSERT_FALSE(loose.ok());
  EXPECT_EQ(loose.error().id, kErrRestUsersFileMode);
  ::chmod(path.c_str(), 0600);
  auto u = load_users_file(path);
  if (::geteuid() == 0) {
    ASSERT_TRUE(u.ok()) << u.error().message;
    EXPECT_TRUE(verify_password(*u, "k8s", "secret"));
  } else {
    EXPECT_FALSE(u.ok());  // not owned by root
  }
  // A symlink is not followed.
  const std::string link = (dir / "link").string();
  std::filesystem::create_symlink(path, link);
  auto l = load_users_file(link);
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.error().id, kErrRestUsersFile);
  std::filesystem::remove_all(dir);
}

TEST(LoginLimiter, BurstThenOneTryPerPeriod) {
  FakeClock clock;
  LoginLimiter limiter({.burst = 3, .refill_every = seconds(10), .max_addresses = 16});
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(limiter.may_try("10.0.0.1", clock.now())) << i;
    limiter.failed("10.0.0.1", clock.now());
  }
  EXPECT_FALSE(limiter.may_try("10.0.0.1", clock.now()));
  EXPECT_EQ(limiter.retry_after("10.0.0.1", clock.now()), seconds(10));
  EXPECT_TRUE(limiter.may_try("10.0.0.2", clock.now()));  // another address is not slowed
  clock.advance(seconds(4));
  EXPECT_FALSE(limiter.may_try("10.0.0.1", clock.now()));
  EXPECT_EQ(limiter.retry_after("10.0.0.1", clock.now()), seconds(6));
  clock.advance(seconds(6));
  EXPECT_TRUE(limiter.may_try("10.0.0.1", clock.now()));
  limiter.failed("10.0.0.1", clock.now());
  EXPECT_FALSE(limiter.may_try("10.0.0.1", clock.now()));
  // A long quiet time refills only up to the burst.
  clock.advance(seconds(3600));
  for (int i = 0; i < 3; ++i)
    limiter.failed("10.0.0.1", clock.now());
  EXPECT_FALSE(limiter.may_try("10.0.0.1", clock.now()));
}

TEST(LoginLimiter, MemoryIsBoundedAndSprayingDoesNotFlushABucket) {
  FakeClock clock;
  LoginLimiter limiter({.burst = 2, .refill_every = seconds(10), .max_addresses = 4});
  limiter.failed("attacker", clock.now());
  limiter.failed("attacker", clock.now());
  EXPECT_FALSE(limiter.may_try("attacker", clock.now()));
  for (int i = 0; i < 1000; ++i)
    limiter.failed("spray" + std::to_string(i), clock.now());
  EXPECT_LE(limiter.tracked(), 4u);
  EXPECT_FALSE(limiter.may_try("attacker", clock.now()));
  // New addresses past the bound share the overflow bucket, which the spray emptied.
  EXPECT_FALSE(limiter.may_try("newcomer", clock.now()));
  // Once buckets refill they are dropped and new addresses get their own again.
  clock.advance(seconds(60));
  EXPECT_TRUE(limiter.may_try("attacker", clock.now()));
  limiter.failed("fresh", clock.now());
  EXPECT_TRUE(limiter.may_try("fresh", clock.now()));
  EXPECT_LE(limiter.tracked(), 4u);
}

}  // namespace
}  // namespace ibsm::rest

namespace ibsm::rest {
namespace {

// Every decoder of untrusted text, fed deterministic garbage and mutations of good
// inputs: each returns (ok or an error), none crashes or hangs.
TEST(HostileInput, DecodersSurviveGarbage) {
  std::uint64_t x = 0x9e3779b97f4a7c15;
  const auto next = [&x] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  const std::string seeds[] = {
      R"({"pkey": "0x0005", "index0": true, "ip_over_ib": true, "membership": "full", )"
      R"("guids": ["0200000000000001","0200000000000002"]})",
      "ibsm-rest-state 1\npartition 0x0005 ip_over_ib=1\nmember 0x0005 0x0200000000000001 full "
      "index0=1\n",
      "Basic YWRtaW46MTIzNDU2",
      "k8s:" + std::string(kSecretHash) + "\n",
  };
  int accepted = 0;
  for (int round = 0; round < 4000; ++round) {
    std::string s = seeds[round % 4];
    const int edits = 1 + static_cast<int>(next() % 4);
    for (int e = 0; e < edits && !s.empty(); ++e) {
      const std::size_t at = next() % s.size();
      switch (next() % 3) {
        case 0:
          s[at] = static_cast<char>(next());
          break;
        case 1:
          s.erase(at, 1 + next() % 8);
          break;
        default:
          s.insert(at, std::string(1 + next() % 4, static_cast<char>(next())));
          break;
      }
    }
    accepted += parse_add_request(s).ok();
    accepted += parse_remove_request(s).ok();
    accepted += parse_state(s, "fuzz").ok();
    accepted += parse_basic_authorization(s).ok();
    accepted += parse_users(s, "fuzz").ok();
  }
  EXPECT_GT(accepted, 0);  // some mutations stay valid: the loop did reach the decoders
}

}  // namespace
}  // namespace ibsm::rest
