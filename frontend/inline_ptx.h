// Inline PTX (`asm("mov.u32 %0, %%laneid;" : "=r"(lane));`) translated to C++ before parsing
// (frontend/inline_ptx.cpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace antlr4 {
class Token;
}

namespace kern::frontend {

class DiagnosticEngine;
struct PreprocessedSource;

/// The C++ that one asm statement's PTX means, with `__kern_asm_operand_N` where the statement's
/// N-th operand expression goes: a block that copies the operands into variables of their
/// constraints' types, runs the instructions on those, and stores the outputs back. `error`
/// says why when the PTX uses what kern does not translate. `templ` is the decoded template,
/// `constraints` the operands' constraint strings, outputs first.
std::string translatePtx(const std::string &templ, const std::vector<std::string> &constraints,
                         std::string &error);

/// Replaces each asm statement inside a function body by the translation of its PTX, on the
/// token stream; one diagnostic for each that cannot be translated (which becomes `;`).
void translateInlinePtx(std::vector<std::unique_ptr<antlr4::Token>> &tokens,
                        const PreprocessedSource &src, DiagnosticEngine &diags);

} // namespace kern::frontend
