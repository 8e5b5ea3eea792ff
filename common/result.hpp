// Result<T, E>: the value of an operation that can fail on input we do not control
// (a MAD off the wire, a config line). Decoders return it instead of throwing, so a
// malformed packet can never unwind through the SM's event loop.
#pragma once

#include <cassert>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "common/error.hpp"

namespace ibsm {

template <class E>
struct Unexpected {
  E error;
};

template <class E>
Unexpected<std::decay_t<E>> fail(E&& e) {
  return {std::forward<E>(e)};
}

inline Unexpected<Error> fail(ErrorId id, std::string message) {
  return {Error{id, std::move(message)}};
}

template <class T, class E = Error>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  template <class U>
  Result(Unexpected<U> e) : v_(std::in_place_index<1>, E(std::move(e.error))) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    assert(ok());
    return std::get<0>(v_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<0>(v_);
  }
  T&& value() && {
    assert(ok());
    return std::get<0>(std::move(v_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const E& error() const {
    assert(!ok());
    return std::get<1>(v_);
  }

 private:
  std::variant<T, E> v_;
};

// Result<void>: success or an error.
template <class E>
class [[nodiscard]] Result<void, E> {
 public:
  Result() = default;
  template <class U>
  Result(Unexpected<U> e) : err_(E(std::move(e.error))), failed_(true) {}  // NOLINT

  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  const E& error() const {
    assert(failed_);
    return err_;
  }

 private:
  E err_{};
  bool failed_ = false;
};

using Status = Result<void>;

}  // namespace ibsm
