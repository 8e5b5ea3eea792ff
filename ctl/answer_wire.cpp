#include "ctl/answer_wire.hpp"

#include "ctl/json.hpp"

namespace ibsm::ctl {

std::string encode_answer(bool framed, bool json, std::string_view name, const Answer& a) {
  std::string body;
  if (json) {
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
    body = j.text() + "\n";
  } else {
    body = a.text;
    if (!body.empty() && body.back() != '\n') body += '\n';
  }
  if (!framed) return body + std::string(kConsolePrompt);
  // Lines that begin with '.' get one more; a line of '.' and a word ends the answer.
  std::string stuffed;
  stuffed.reserve(body.size() + 16);
  std::size_t pos = 0;
  while (pos < body.size()) {
    const std::size_t nl = body.find('\n', pos);
    const std::size_t end = nl == std::string::npos ? body.size() : nl;
    if (body[pos] == '.') stuffed += '.';
    stuffed.append(body, pos, end - pos);
    stuffed += '\n';
    pos = end + 1;
  }
  stuffed += a.ok ? ".ok\n" : ".err\n";
  return stuffed;
}

}  // namespace ibsm::ctl
