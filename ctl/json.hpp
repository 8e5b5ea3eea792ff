// A small JSON writer for the control protocol's --json answers: one document on one
// line, keys in the order written. Strings are escaped by common/escape.hpp's JSON
// escaper (as events are): valid UTF-8, control characters as \uXXXX.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <spdlog/fmt/fmt.h>

#include "common/escape.hpp"

namespace ibsm::ctl {

class JsonWriter {
 public:
  JsonWriter& begin_object() { return open('{'); }
  JsonWriter& end_object() { return close('}'); }
  JsonWriter& begin_array() { return open('['); }
  JsonWriter& end_array() { return close(']'); }
  JsonWriter& key(std::string_view k) {
    comma();
    text::append_json_string(out_, k);
    out_ += ':';
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
    out_ += c;
    if (!first_.empty()) first_.pop_back();
    return *this;
  }
  void comma() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!first_.empty()) {
      if (!first_.back()) out_ += ',';
      first_.back() = false;
    }
  }
  std::string out_;
  std::vector<bool> first_;
  bool after_key_ = false;
};

}  // namespace ibsm::ctl
