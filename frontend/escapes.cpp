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

namespace {

constexpr uint32_t kRawByteBase = 0x10FE00; // lexableText's code point of raw byte b: base + b

/// The length of the valid UTF-8 sequence at text[i], or 0 if none starts there.
size_t utf8Length(std::string_view t, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(t[k]); };
  const unsigned char c = b(i);
  if (c < 0x80)
    return 1;
  size_t n = c >= 0xC2 && c <= 0xDF   ? 2
             : c >= 0xE0 && c <= 0xEF ? 3
             : c >= 0xF0 && c <= 0xF4 ? 4
                                      : 0;
  if (n == 0 || i + n > t.size())
    return 0;
  for (size_t k = 1; k < n; ++k)
    if ((b(i + k) & 0xC0) != 0x80)
      return 0;
  // No overlong forms, surrogates or code points past U+10FFFF.
  if ((c == 0xE0 && b(i + 1) < 0xA0) || (c == 0xED && b(i + 1) >= 0xA0) ||
      (c == 0xF0 && b(i + 1) < 0x90) || (c == 0xF4 && b(i + 1) >= 0x90))
    return 0;
  return n;
}

/// The raw byte that lexableText wrote as the 4-byte sequence at s[i], or -1.
int rawByteAt(std::string_view s, size_t i) {
  if (i + 4 > s.size() || static_cast<unsigned char>(s[i]) != 0xF4)
    return -1;
  const uint32_t cp = (uint32_t(static_cast<unsigned char>(s[i]) & 7) << 18) |
                      (uint32_t(static_cast<unsigned char>(s[i + 1]) & 0x3F) << 12) |
                      (uint32_t(static_cast<unsigned char>(s[i + 2]) & 0x3F) << 6) |
                      uint32_t(static_cast<unsigned char>(s[i + 3]) & 0x3F);
  return cp >= kRawByteBase + 0x80 && cp <= kRawByteBase + 0xFF ? int(cp - kRawByteBase) : -1;
}

} // namespace

std::string lexableText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    if (size_t n = utf8Length(text, i)) {
      out.append(text.substr(i, n));
      i += n;
      continue;
    }
    const uint32_t cp = kRawByteBase + static_cast<unsigned char>(text[i++]);
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return out;
}

std::string decodeStringBody(std::string_view body) {
  std::string out;
  for (size_t i = 0; i < body.size();) {
    if (body[i] == '\\') {
      out += static_cast<char>(decodeEscape(body, i));
    } else if (int raw = rawByteAt(body, i); raw >= 0) {
      out += static_cast<char>(raw);
      i += 4;
    } else {
      out += body[i++];
    }
  }
  return out;
}

bool decodeCharBody(std::string_view body, int64_t &value) {
  if (body.empty()) {
    value = 0;
    return true;
  }
  size_t i = 0;
  uint32_t v = 0;
  if (body[0] == '\\') {
    v = decodeEscape(body, i);
  } else if (int raw = rawByteAt(body, 0); raw >= 0) {
    v = static_cast<uint32_t>(raw);
    i = 4;
  } else {
    v = static_cast<unsigned char>(body[i++]);
  }
  // A char literal has type char in C++ (signed on CUDA hosts): '\xff' is -1.
  value = static_cast<signed char>(v);
  return i >= body.size();
}

} // namespace kern::frontend
