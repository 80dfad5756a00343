// Unit tests of the front end's one escape decoder (frontend/escapes.h): every escape form, the
// bodies of string literals and the values of character constants.
#include "frontend/escapes.h"

#include <catch2/catch.hpp>

#include <string>

using namespace kern::frontend;

namespace {

/// Decodes the one escape that `s` starts with; checks it used `length` characters.
uint32_t escape(const std::string &s, size_t length) {
  size_t i = 0;
  uint32_t v = decodeEscape(s, i);
  CHECK(i == length);
  return v;
}

int64_t charValue(const std::string &body) {
  int64_t v = 0;
  CHECK(decodeCharBody(body, v));
  return v;
}

} // namespace

TEST_CASE("decodeEscape decodes the simple escapes", "[frontend][escapes]") {
  CHECK(escape("\\n", 2) == '\n');
  CHECK(escape("\\t", 2) == '\t');
  CHECK(escape("\\r", 2) == '\r');
  CHECK(escape("\\a", 2) == '\a');
  CHECK(escape("\\b", 2) == '\b');
  CHECK(escape("\\f", 2) == '\f');
  CHECK(escape("\\v", 2) == '\v');
  CHECK(escape("\\e", 2) == 27);
  CHECK(escape("\\\\", 2) == '\\');
  CHECK(escape("\\'", 2) == '\'');
  CHECK(escape("\\\"", 2) == '"');
  CHECK(escape("\\?", 2) == '?');
  CHECK(escape("\\q", 2) == 'q'); // unknown: the character itself
  CHECK(escape("\\", 1) == '\\'); // a lone trailing backslash
}

TEST_CASE("decodeEscape decodes hex and octal escapes to 8 bits", "[frontend][escapes]") {
  CHECK(escape("\\x41", 4) == 0x41);
  CHECK(escape("\\xfFz", 4) == 0xff);
  CHECK(escape("\\x141", 5) == 0x41); // every hex digit is read; the value keeps 8 bits
  CHECK(escape("\\0", 2) == 0);
  CHECK(escape("\\101", 4) == 'A');
  CHECK(escape("\\1012", 4) == 'A'); // at most three octal digits
  CHECK(escape("\\777", 4) == 0xff);
  CHECK(escape("\\08", 2) == 0); // 8 is not an octal digit
  size_t i = 2;
  CHECK(decodeEscape("ab\\tc", i) == '\t'); // decodes at i, not at the start
  CHECK(i == 4);
}

TEST_CASE("decodeStringBody decodes a string literal's text", "[frontend][escapes]") {
  CHECK(decodeStringBody("plain") == "plain");
  CHECK(decodeStringBody("a\\tb\\n") == "a\tb\n");
  CHECK(decodeStringBody("\\x41\\102C") == "ABC");
  CHECK(decodeStringBody("%d\\\\%s\\\"") == "%d\\%s\"");
  CHECK(decodeStringBody("x\\0y") == std::string("x\0y", 3));
  CHECK(decodeStringBody("") == "");
}

TEST_CASE("decodeCharBody gives a char constant's value as a signed char", "[frontend][escapes]") {
  CHECK(charValue("a") == 'a');
  CHECK(charValue("\\n") == '\n');
  CHECK(charValue("\\x41") == 65);
  CHECK(charValue("\\xff") == -1);
  CHECK(charValue("\\377") == -1);
  CHECK(charValue("\\200") == -128);
  CHECK(charValue("\\0") == 0);
  CHECK(charValue("") == 0);
  int64_t v = 0;
  CHECK_FALSE(decodeCharBody("ab", v)); // multi-character constant
  CHECK(v == 'a');
  CHECK_FALSE(decodeCharBody("\\nx", v));
  CHECK(v == '\n');
}
