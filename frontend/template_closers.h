// Splitting the `>>` that closes two template argument lists (frontend/template_closers.cpp).
#pragma once

#include <memory>
#include <vector>

namespace antlr4 {
class Token;
}

namespace kern::frontend {

/// A copy of the lexer's tokens in which each `>>` that ends template argument lists is two `>`.
std::vector<std::unique_ptr<antlr4::Token>>
splitTemplateClosers(const std::vector<antlr4::Token *> &all);

} // namespace kern::frontend
