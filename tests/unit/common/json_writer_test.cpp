// common/json_writer.hpp: the documents ctl, the events and the agent print, compact
// and indented, with strings escaped and containers nested as written.
#include "common/json_writer.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace ibsm {
namespace {

TEST(JsonWriter, CompactNestsAndSeparatesMembers) {
  JsonWriter j;
  j.begin_object()
      .field("a", 1)
      .key("list")
      .begin_array()
      .num(std::uint64_t{2})
      .begin_object()
      .field("b", true)
      .end_object()
      .begin_array()
      .end_array()
      .null()
      .end_array()
      .key("empty")
      .begin_object()
      .end_object()
      .field("s", "x")
      .end_object();
  EXPECT_EQ(j.text(), R"({"a":1,"list":[2,{"b":true},[],null],"empty":{},"s":"x"})");
}

TEST(JsonWriter, EscapesKeysAndStrings) {
  JsonWriter j;
  j.begin_object().field("k\"ey\\", "a\"b\\c\nd\te\x01\x7f \xff").end_object();
  EXPECT_EQ(j.text(), "{\"k\\\"ey\\\\\":\"a\\\"b\\\\c\\nd\\te\\u0001\\u007f \xef\xbf\xbd\"}");
}

TEST(JsonWriter, NumbersKeepTheirTypeAndNonFiniteIsNull) {
  JsonWriter j;
  j.begin_array()
      .num(std::numeric_limits<std::uint64_t>::max())
      .num(std::int64_t{-5})
      .num(0.25)
      .num(std::numeric_limits<double>::infinity())
      .num(std::numeric_limits<double>::quiet_NaN())
      .end_array();
  EXPECT_EQ(j.text(), "[18446744073709551615,-5,0.25,null,null]");
}

TEST(JsonWriter, IndentedIsOneValueALineFourBlanksALevel) {
  JsonWriter j(JsonLayout::kIndented);
  j.begin_object()
      .key("actions")
      .begin_array()
      .begin_object()
      .field("diff", "--- a\n")
      .field("disruptive", false)
      .end_object()
      .end_array()
      .field("changes", 1)
      .key("errors")
      .begin_array()
      .end_array()
      .key("notes")
      .begin_array()
      .str("n")
      .end_array()
      .end_object();
  EXPECT_EQ(std::move(j).take(),
            "{\n"
            "    \"actions\" : [\n"
            "        {\n"
            "            \"diff\" : \"--- a\\n\",\n"
            "            \"disruptive\" : false\n"
            "        }\n"
            "    ],\n"
            "    \"changes\" : 1,\n"
            "    \"errors\" : [],\n"
            "    \"notes\" : [\n"
            "        \"n\"\n"
            "    ]\n"
            "}");
}

TEST(JsonWriter, RawValuesAreSeparatedLikeAnyOther) {
  JsonWriter j;
  j.begin_array().raw(R"({"e":1})").raw(R"({"e":2})").end_array();
  EXPECT_EQ(j.text(), R"([{"e":1},{"e":2}])");
}

}  // namespace
}  // namespace ibsm
