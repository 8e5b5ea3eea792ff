// The one JSON writer: a document written front to back, keys in the order written,
// strings escaped by common/escape.hpp's JSON escaper (valid UTF-8, control characters
// as \uXXXX). Two layouts of the same document:
//   kCompact   one line, no blanks: ctl's --json answers and the SM's events;
//   kIndented  one value a line, 4 blanks a level, "key" : value, empty containers as
//              [] and {}: the agent's --format json (the layout toml++'s
//              json_formatter printed before, so that output stays byte for byte).
// nlohmann-json and Boost.JSON build a tree first and then print it; the answers
// written here are streamed (a ctl answer can be many MiB), need no parser, and keep
// their key order without a sorted or ordered map, so this small writer stays.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <spdlog/fmt/fmt.h>

#include "common/escape.hpp"

namespace ibsm {

enum class JsonLayout : std::uint8_t { kCompact, kIndented };

class JsonWriter {
 public:
  explicit JsonWriter(JsonLayout layout = JsonLayout::kCompact) : layout_(layout) {}

  JsonWriter& begin_object() { return open('{'); }
  JsonWriter& end_object() { return close('}'); }
  JsonWriter& begin_array() { return open('['); }
  JsonWriter& end_array() { return close(']'); }
  JsonWriter& key(std::string_view k) {
    comma();
    text::append_json_string(out_, k);
    out_ += layout_ == JsonLayout::kIndented ? " : " : ":";
    after_key_ = true;
    return *this;
  }
  JsonWriter& str(std::string_view v) {
    comma();
    text::append_json_string(out_, v);
    return *this;
  }
  JsonWriter& num(std::uint64_t v) { return raw(fmt::format("{}", v)); }
  JsonWriter& num(std::int64_t v) { return raw(fmt::format("{}", v)); }
  JsonWriter& num(int v) { return raw(fmt::format("{}", v)); }
  JsonWriter& num(unsigned v) { return raw(fmt::format("{}", v)); }
  JsonWriter& num(double v) { return raw(std::isfinite(v) ? fmt::format("{}", v) : "null"); }
  JsonWriter& boolean(bool v) { return raw(v ? "true" : "false"); }
  JsonWriter& null() { return raw("null"); }
  // key + value in one call.
  template <class T>
  JsonWriter& field(std::string_view k, const T& v) {
    key(k);
    if constexpr (std::is_same_v<T, bool>) {
      return boolean(v);
    } else if constexpr (std::is_convertible_v<T, std::string_view>) {
      return str(v);
    } else if constexpr (std::is_floating_point_v<T>) {
      return num(static_cast<double>(v));
    } else if constexpr (std::is_signed_v<T>) {
      return num(static_cast<std::int64_t>(v));
    } else {
      return num(static_cast<std::uint64_t>(v));
    }
  }
  // A value already encoded (an event's JSON).
  JsonWriter& raw(std::string_view encoded) {
    comma();
    out_ += encoded;
    return *this;
  }
  void reserve(std::size_t bytes) { out_.reserve(bytes); }
  const std::string& text() const { return out_; }
  // The document, moved out (an answer of many MiB is not copied).
  std::string take() && { return std::move(out_); }

 private:
  JsonWriter& open(char c) {
    comma();
    out_ += c;
    first_.push_back(true);
    return *this;
  }
  JsonWriter& close(char c) {
    // Indented, a container with members ends on a line of its own.
    if (layout_ == JsonLayout::kIndented && !first_.empty() && !first_.back())
      new_line(first_.size() - 1);
    out_ += c;
    if (!first_.empty()) first_.pop_back();
    return *this;
  }
  // Before a value or a key: the comma after the previous member, and, indented, the
  // new line. A value right after its key needs neither.
  void comma() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!first_.empty()) {
      if (!first_.back()) out_ += ',';
      first_.back() = false;
      if (layout_ == JsonLayout::kIndented) new_line(first_.size());
    }
  }
  void new_line(std::size_t depth) {
    out_ += '\n';
    out_.append(4 * depth, ' ');
  }
  std::string out_;
  std::vector<bool> first_;
  bool after_key_ = false;
  JsonLayout layout_;
};

}  // namespace ibsm
