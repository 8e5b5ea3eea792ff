#include "ctl/answer_wire.hpp"

#include <utility>

#include "common/json_writer.hpp"

namespace ibsm::ctl {

AnswerWire encode_answer_parts(bool framed, bool json, std::string_view name, Answer a) {
  AnswerWire w;
  if (json && a.ok && !a.json.empty()) {
    // {"command":NAME,"ok":true,"result":RESULT}: the result is sent as it is.
    JsonWriter j;
    j.begin_object().field("command", name).field("ok", true).key("result");
    w.head = std::move(j).take();
    w.body = std::move(a.json);
    w.tail = "}\n";
  } else if (json) {
    JsonWriter j;
    j.begin_object().field("command", name).field("ok", a.ok);
    if (a.ok) {
      j.key("result").raw(a.json.empty() ? "{}" : a.json);
      if (!a.text.empty() && a.json.empty()) j.field("text", a.text);
    } else {
      std::string msg = a.text;
      const std::string prefix = format_error_id(a.error) + ": ";
      if (msg.starts_with(prefix)) msg.erase(0, prefix.size());
      while (!msg.empty() && msg.back() == '\n')
        msg.pop_back();
      j.key("error")
          .begin_object()
          .field("id", format_error_id(a.error))
          .field("message", msg)
          .end_object();
    }
    j.end_object();
    w.body = std::move(j).take();  // one line: JSON escapes every newline
    w.tail = "\n";
  } else {
    w.body = std::move(a.text);
    if (!w.body.empty() && w.body.back() != '\n') w.tail = "\n";
  }
  if (!framed) {
    w.tail += kConsolePrompt;
    return w;
  }
  // Lines that begin with '.' get one more; a line of '.' and a word ends the answer.
  if (!json && (w.body.starts_with('.') || w.body.find("\n.") != std::string::npos)) {
    std::string stuffed;
    stuffed.reserve(w.body.size() + w.body.size() / 64 + 16);
    std::size_t pos = 0;
    while (pos < w.body.size()) {
      const std::size_t nl = w.body.find('\n', pos);
      const std::size_t end = nl == std::string::npos ? w.body.size() : nl;
      if (w.body[pos] == '.') stuffed += '.';
      stuffed.append(w.body, pos, end - pos);
      stuffed += '\n';
      pos = end + 1;
    }
    w.body = std::move(stuffed);
    w.tail.clear();  // the last line has its newline now
  }
  w.tail += a.ok ? ".ok\n" : ".err\n";
  return w;
}

std::string encode_answer(bool framed, bool json, std::string_view name, const Answer& a) {
  AnswerWire w = encode_answer_parts(framed, json, name, a);
  w.head += w.body;
  w.head += w.tail;
  return std::move(w.head);
}

}  // namespace ibsm::ctl
