// common/display_text.hpp and common/escape.hpp: wire text into display text, and
// display text into each format that shows it.
#include "common/display_text.hpp"

#include <gtest/gtest.h>

#include <string>

#include "common/escape.hpp"

namespace ibsm::text {
namespace {

const std::string kFffd = "\xef\xbf\xbd";

TEST(DisplayText, CleanAsciiAndValidUtf8PassUnchanged) {
  EXPECT_EQ(display_text("leaf-01 HCA-1"), "leaf-01 HCA-1");
  EXPECT_EQ(display_text("h3 'q' \\back\\ $(reboot);`id`|&"), "h3 'q' \\back\\ $(reboot);`id`|&");
  const std::string utf8 = "n\xc5\x93ud \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80";  // nœud 日本 😀
  EXPECT_EQ(display_text(utf8), utf8);
  EXPECT_TRUE(is_display_text(utf8));
}

TEST(DisplayText, EndsAtTheFirstNulAsNulPaddedFieldsDo) {
  EXPECT_EQ(display_text(std::string("sw-1\0\0\0junk", 11)), "sw-1");
  EXPECT_EQ(display_text(std::string(64, '\0')), "");
}

TEST(DisplayText, EachBadByteBecomesOneReplacementCharacter) {
  EXPECT_EQ(display_text("a\xff\xfe"
                         "b"),
            "a" + kFffd + kFffd + "b");
  // An overlong '/', a surrogate, a value past U+10FFFF, a truncated sequence.
  EXPECT_EQ(display_text("\xc0\xaf"), kFffd + kFffd);
  EXPECT_EQ(display_text("\xed\xa0\x80"), kFffd + kFffd + kFffd);
  EXPECT_EQ(display_text("\xf4\x90\x80\x80"), kFffd + kFffd + kFffd + kFffd);
  EXPECT_EQ(display_text("x\xe2\x82"), "x" + kFffd + kFffd);
  EXPECT_EQ(display_text("\x80"), kFffd);
}

TEST(DisplayText, ControlsBecomeBlanksOrReplacementCharacters) {
  // White space as a blank (OpenSM's clean_nodedesc), other controls as U+FFFD.
  EXPECT_EQ(display_text("a\tb\nc\rd"), "a b c d");
  EXPECT_EQ(display_text("\x1b[31mred\x7f"), kFffd + "[31mred" + kFffd);
  EXPECT_EQ(display_text("\xc2\x85\xc2\x9b"), kFffd + kFffd);  // C1: NEL, CSI
  // Line separator, right-to-left override, a noncharacter.
  EXPECT_EQ(display_text("\xe2\x80\xa8\xe2\x80\xae\xef\xbf\xbe"), kFffd + kFffd + kFffd);
  EXPECT_FALSE(is_display_text("a\x01"));
  EXPECT_FALSE(is_display_text("a\xff"));
  EXPECT_FALSE(is_display_text(std::string("a\0", 2)));
}

TEST(DisplayText, IsCutAtACharacterBoundaryWithinItsBound) {
  EXPECT_EQ(display_text(std::string(80, 'x'), 64), std::string(64, 'x'));
  // 62 bytes, then a 3-byte character that would end past 63: left out whole.
  const std::string s = std::string(62, 'x') + "\xe6\x97\xa5";
  EXPECT_EQ(display_text(s, 63), std::string(62, 'x'));
  EXPECT_EQ(display_text(s, 65), s);
  // 64 bad bytes: 21 U+FFFD fit 64 bytes.
  const std::string bad = display_text(std::string(64, '\xff'), 64);
  EXPECT_EQ(bad.size(), 63u);
  EXPECT_TRUE(is_display_text(bad));
}

TEST(DisplayName, TheMapsNameElseTheDescriptionCutAt63) {
  const std::string mapped = "leaf-01";
  EXPECT_EQ(display_name(&mapped, "anything"), "leaf-01");
  EXPECT_EQ(display_name(nullptr, "h1 HCA-1"), "h1 HCA-1");
  EXPECT_EQ(display_name(nullptr, std::string(64, 'd')), std::string(63, 'd'));
  EXPECT_EQ(display_name(nullptr, "<b>\xff"), "<b>" + kFffd);
  EXPECT_EQ(display_name(nullptr, ""), "");
}

TEST(PrometheusLabel, EscapesBackslashQuoteAndLineFeedOnly) {
  EXPECT_EQ(prometheus_label("leaf-01"), "leaf-01");
  EXPECT_EQ(prometheus_label("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
  EXPECT_EQ(prometheus_label("<script>'x'</script>"), "<script>'x'</script>");
  // The scrape that failed: raw bytes that are not UTF-8.
  EXPECT_EQ(prometheus_label("h4 \xff\xfe"), "h4 " + kFffd + kFffd);
  EXPECT_EQ(prometheus_label("t\tx\x01"), "t x" + kFffd);
}

TEST(Markup, EscapesTheFiveAndKeepsToXml10Characters) {
  std::string out;
  append_markup(out, "<script>alert('1')</script> & \"x\"");
  EXPECT_EQ(out, "&lt;script&gt;alert(&#39;1&#39;)&lt;/script&gt; &amp; &quot;x&quot;");
  out.clear();
  // NUL, ESC and U+FFFF are not XML 1.0 characters; bad bytes are not UTF-8.
  append_markup(out, std::string("a\0b\x1b\xef\xbf\xbf\xff", 8));
  EXPECT_EQ(out, "a" + kFffd + "b" + kFffd + kFffd + kFffd);
  out.clear();
  append_markup(out, "n\xc5\x93ud");
  EXPECT_EQ(out, "n\xc5\x93ud");
}

TEST(JsonString, EscapesControlsAndKeepsValidUtf8) {
  std::string out;
  append_json_string(out, "a\"b\\c\nd\te\x01\x7f\xc2\x85\xe2\x80\xa8 n\xc5\x93ud");
  EXPECT_EQ(out, "\"a\\\"b\\\\c\\nd\\te\\u0001\\u007f\\u0085\\u2028 n\xc5\x93ud\"");
  out.clear();
  append_json_string(out, "h4 \xff\xfe");
  EXPECT_EQ(out, "\"h4 " + kFffd + kFffd + "\"");
}

}  // namespace
}  // namespace ibsm::text
