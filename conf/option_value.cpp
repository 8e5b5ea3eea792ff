#include "conf/option_value.hpp"

#include <cinttypes>
#include <cstdio>
#include <limits>
#include <optional>

#include "common/c_number.hpp"
#include "conf/errors.hpp"

namespace ibsm::conf {
namespace {

// An integer option's text: a whole C literal (common/c_number.hpp) without blanks,
// signed only for a signed field; base 16 for the options the command line takes in
// hex. Any fault (no digits, junk after them, beyond 64 bits) is "not a number".
std::optional<CNumber> parse_integer(std::string_view s, IntBase base_kind, bool allow_sign) {
  auto n =
      parse_c_number(s, CNumberSyntax{.sign = allow_sign, .base16 = base_kind == IntBase::kHex});
  if (!n) return std::nullopt;
  return *n;
}

}  // namespace

std::optional<std::uint64_t> parse_c_integer(std::string_view text) {
  const auto p = parse_integer(text, IntBase::kAuto, false);
  if (!p) return std::nullopt;
  return p->magnitude;
}

namespace {

template <class T>
struct Limits {
  std::int64_t lo;
  std::uint64_t hi;
};

template <class T>
Limits<T> limits_of(const Spec& spec) {
  Limits<T> l{static_cast<std::int64_t>(std::numeric_limits<T>::min()),
              static_cast<std::uint64_t>(std::numeric_limits<T>::max())};
  if (spec.ranged) {
    l.lo = spec.lo;
    l.hi = spec.hi;
  }
  return l;
}

std::string range_text(std::int64_t lo, std::uint64_t hi, Fmt fmt) {
  char buf[64];
  if (fmt == Fmt::kHex && lo >= 0) {
    std::snprintf(buf, sizeof buf, "0x%" PRIx64 "-0x%" PRIx64, static_cast<std::uint64_t>(lo), hi);
  } else {
    std::snprintf(buf, sizeof buf, "%" PRId64 "-%" PRIu64, lo, hi);
  }
  return buf;
}

std::string quoted(std::string_view v) {
  return "'" + std::string(v) + "'";
}

struct Setter {
  const OptionRow& row;
  Options& o;
  std::string_view text;
  IntBase base;

  Result<std::string> bad(const std::string& why) const {
    return fail(kBadValue, "invalid value " + quoted(text) + " for " + std::string(row.key) + " (" +
                               why + "; allowed: " + allowed_values(row) + ")");
  }

  Result<std::string> operator()(bool Options::*f) const {
    o.*f = text == "TRUE";
    if (text == "TRUE" || text == "FALSE") return std::string();
    return std::string(row.key) + ": value " + quoted(text) +
           " is read as FALSE (only the exact word TRUE means true, as in OpenSM)";
  }

  template <class T>
  Result<std::string> operator()(T Options::*f) const requires std::is_integral_v<T> {
    const auto p = parse_integer(text, base, std::is_signed_v<T>);
    if (!p) return bad("not a number");
    const auto lim = limits_of<T>(row.spec);
    if (p->negative) {
      if (p->magnitude == 0) {
        o.*f = 0;
        return std::string();
      }
      if (lim.lo >= 0 || p->magnitude > static_cast<std::uint64_t>(-(lim.lo + 1)) + 1) {
        return bad("out of range");
      }
      o.*f = static_cast<T>(-static_cast<std::int64_t>(p->magnitude - 1) - 1);
      return std::string();
    }
    if (p->magnitude > lim.hi || (lim.lo > 0 && p->magnitude < static_cast<std::uint64_t>(lim.lo)))
      return bad("out of range");
    o.*f = static_cast<T>(p->magnitude);
    return std::string();
  }

  Result<std::string> operator()(std::string Options::*f) const {
    if (text == "(null)" && row.spec.fmt != Fmt::kChoice) {
      o.*f = std::string();
      return std::string();
    }
    switch (row.spec.fmt) {
      case Fmt::kChoice:
        for (auto c : row.spec.choices) {
          if (!c.empty() && c == text) {
            o.*f = std::string(text);
            return std::string();
          }
        }
        return bad("not one of the words");
      case Fmt::kRaw:
        if (const char* why = row.spec.check(text))
          return bad(row.spec.diagnose != nullptr ? row.spec.diagnose(text) : why);
        break;
      default:
        break;
    }
    o.*f = std::string(text);
    return std::string();
  }
};

struct Formatter {
  const OptionRow& row;
  const Options& o;

  std::string operator()(bool Options::*f) const { return o.*f ? "TRUE" : "FALSE"; }

  template <class T>
  std::string operator()(T Options::*f) const requires std::is_integral_v<T> {
    char buf[32];
    if (row.spec.fmt == Fmt::kHex) {
      std::snprintf(buf, sizeof buf, "0x%0*" PRIx64, row.spec.width,
                    static_cast<std::uint64_t>(o.*f));
    } else if constexpr (std::is_signed_v<T>) {
      std::snprintf(buf, sizeof buf, "%" PRId64, static_cast<std::int64_t>(o.*f));
    } else {
      std::snprintf(buf, sizeof buf, "%" PRIu64, static_cast<std::uint64_t>(o.*f));
    }
    return buf;
  }

  std::string operator()(std::string Options::*f) const { return (o.*f).empty() ? "(null)" : o.*f; }
};

}  // namespace

Result<std::string> set_value(const OptionRow& row, Options& o, std::string_view text,
                              IntBase base) {
  auto r = std::visit(Setter{row, o, text, base}, row.field);
  if (r) o.given.add(row.key);
  return r;
}

std::string format_value(const OptionRow& row, const Options& o) {
  return std::visit(Formatter{row, o}, row.field);
}

std::string format_default(const OptionRow& row) {
  static const Options defaults;
  return format_value(row, defaults);
}

bool is_default(const OptionRow& row, const Options& o) {
  static const Options defaults;
  return std::visit([&](auto f) { return o.*f == defaults.*f; }, row.field);
}

std::string allowed_values(const OptionRow& row) {
  const Spec& s = row.spec;
  switch (s.fmt) {
    case Fmt::kBool:
      return "TRUE or FALSE";
    case Fmt::kText:
      return "a string, (null) = unset";
    case Fmt::kRaw:
      return s.check("\x01");  // the check describes its syntax
    case Fmt::kChoice: {
      std::string out;
      for (auto c : s.choices) {
        if (c.empty()) continue;
        if (!out.empty()) out += ", ";
        out += c;
      }
      return out;
    }
    case Fmt::kDec:
    case Fmt::kHex:
      return std::visit(
          [&](auto f) -> std::string {
            using Field = std::remove_reference_t<decltype(Options{}.*f)>;
            if constexpr (std::is_integral_v<Field> && !std::is_same_v<Field, bool>) {
              const auto lim = limits_of<Field>(s);
              return range_text(lim.lo, lim.hi, s.fmt);
            } else {
              return "?";
            }
          },
          row.field);
  }
  return "?";
}

}  // namespace ibsm::conf
