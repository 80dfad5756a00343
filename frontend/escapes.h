// The one escape decoder of the front end: C's escape sequences in character and string
// literals, for the AST builder's literals and the preprocessor's #if expressions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kern::frontend {

/// Decodes the escape sequence that starts at s[i] == '\\' and advances `i` past it. Returns
/// the character it names: \n \t \r \a \b \f \v, \e (ESC), \\ \' \" \?, \x with any number of hex
/// digits and \ooo with up to three octal digits (both kept to 8 bits); any other character
/// stands for itself (`\q` is 'q'), and a lone trailing backslash for a backslash.
uint32_t decodeEscape(std::string_view s, size_t &i);

/// `text` as the lexer can read it: valid UTF-8 as it is, and each byte that is not part of
/// valid UTF-8 (a Latin-1 `\xe9` in a string literal) as the private code point U+10FE00 + byte,
/// which the literal decoders below turn back into that byte, as C compilers keep such bytes.
std::string lexableText(std::string_view text);

/// The characters that the body of a string literal (the text between its quotes) stands for.
std::string decodeStringBody(std::string_view body);

/// The value of a character constant from its body (the text between its quotes): its
/// character code as a `char`, signed as on CUDA hosts ('\xff' is -1). Returns false when the
/// body holds more than one character (a multi-character constant); `value` is then the first.
bool decodeCharBody(std::string_view body, int64_t &value);

} // namespace kern::frontend
