// The one escape decoder of the front end (see escapes.h).
#include "frontend/escapes.h"

#include <cctype>

namespace kern::frontend {

uint32_t decodeEscape(std::string_view s, size_t &i) {
  ++i; // the backslash
  if (i >= s.size())
    return '\\';
  char c = s[i++];
  switch (c) {
  case 'n':
    return '\n';
  case 't':
    return '\t';
  case 'r':
    return '\r';
  case 'a':
    return '\a';
  case 'b':
    return '\b';
  case 'f':
    return '\f';
  case 'v':
    return '\v';
  case 'e':
    return 27;
  case '\\':
    return '\\';
  case '\'':
    return '\'';
  case '"':
    return '"';
  case '?':
    return '?';
  case 'x': {
    uint32_t v = 0;
    while (i < s.size() && std::isxdigit(static_cast<unsigned char>(s[i])))
      v = v * 16 + static_cast<uint32_t>(std::isdigit(static_cast<unsigned char>(s[i]))
                                             ? s[i] - '0'
                                             : (std::tolower(s[i]) - 'a' + 10)),
      ++i;
    return v & 0xff;
  }
  default:
    if (c >= '0' && c <= '7') {
      uint32_t v = static_cast<uint32_t>(c - '0');
      for (int k = 0; k < 2 && i < s.size() && s[i] >= '0' && s[i] <= '7'; ++k)
        v = v * 8 + static_cast<uint32_t>(s[i++] - '0');
      return v & 0xff;
    }
    return static_cast<unsigned char>(c);
  }
}

std::string decodeStringBody(std::string_view body) {
  std::string out;
  for (size_t i = 0; i < body.size();) {
    if (body[i] == '\\')
      out += static_cast<char>(decodeEscape(body, i));
    else
      out += body[i++];
  }
  return out;
}

bool decodeCharBody(std::string_view body, int64_t &value) {
  if (body.empty()) {
    value = 0;
    return true;
  }
  size_t i = 0;
  uint32_t v = body[0] == '\\' ? decodeEscape(body, i) : static_cast<unsigned char>(body[i++]);
  // A char literal has type char in C++ (signed on CUDA hosts): '\xff' is -1.
  value = static_cast<signed char>(v);
  return i >= body.size();
}

} // namespace kern::frontend
