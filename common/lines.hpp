// The lines of a file's text, numbered from 1, for readers that name file:line in their
// errors: `for (const text::Line& l : text::Lines(text))`. A final '\n' ends the last
// line (it does not start an empty one); the '\n' is not part of a line; a '\r' is.
#pragma once

#include <cstddef>
#include <iterator>
#include <string_view>

namespace ibsm::text {

struct Line {
  std::string_view text;
  unsigned number = 0;
};

class Lines {
 public:
  explicit Lines(std::string_view text) : text_(text) {}

  class iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Line;
    using difference_type = std::ptrdiff_t;
    using pointer = const Line*;
    using reference = const Line&;

    iterator() = default;  // the end
    explicit iterator(std::string_view text) : rest_(text), done_(false) { ++*this; }
    reference operator*() const { return line_; }
    pointer operator->() const { return &line_; }
    iterator& operator++() {
      if (rest_.empty()) {
        done_ = true;
        return *this;
      }
      const auto eol = rest_.find('\n');
      line_ = {rest_.substr(0, eol), line_.number + 1};
      rest_.remove_prefix(eol == std::string_view::npos ? rest_.size() : eol + 1);
      return *this;
    }
    bool operator==(const iterator& other) const { return done_ && other.done_; }

   private:
    std::string_view rest_;
    Line line_;
    bool done_ = true;
  };

  iterator begin() const { return iterator(text_); }
  iterator end() const { return iterator(); }

 private:
  std::string_view text_;
};

}  // namespace ibsm::text
