// Unit tests of the front end's one constant folder (frontend/const_eval.h): untyped folding as
// the AST builder uses it, typed folding after sema (wrapping, unsigned operators), division by
// zero, and the floating-point constants of file-scope initialisers.
#include "frontend/ast_builder.h"
#include "frontend/const_eval.h"
#include "frontend/sema.h"

#include <catch2/catch.hpp>

#include <string>

using namespace kern::frontend;

namespace {

/// Builds expression trees by hand (no types: what the AST builder sees).
struct Trees {
  TranslationUnit tu;
  Expr *lit(int64_t v) {
    Expr *e = tu.make<Expr>(ExprKind::IntLit);
    e->intValue = static_cast<uint64_t>(v);
    return e;
  }
  Expr *flit(double v) {
    Expr *e = tu.make<Expr>(ExprKind::FloatLit);
    e->floatValue = v;
    return e;
  }
  Expr *un(UnaryOp op, Expr *a) {
    Expr *e = tu.make<Expr>(ExprKind::Unary);
    e->unaryOp = op;
    e->operands = {a};
    return e;
  }
  Expr *bin(BinaryOp op, Expr *a, Expr *b) {
    Expr *e = tu.make<Expr>(ExprKind::Binary);
    e->binaryOp = op;
    e->operands = {a, b};
    return e;
  }
  Expr *cond(Expr *c, Expr *a, Expr *b) {
    Expr *e = tu.make<Expr>(ExprKind::Conditional);
    e->operands = {c, a, b};
    return e;
  }
};

/// A program run through the preprocessor, the parser and sema: the typed AST the lowering sees.
struct Program {
  SourceManager sm;
  DiagnosticEngine diags{sm};
  TypeContext types;
  TranslationUnit tu;
  explicit Program(const std::string &text) {
    uint32_t id = sm.addFile("test.kern", text);
    PreprocessedSource src = preprocess(sm, id, diags);
    REQUIRE(parseTranslationUnit(src, tu, diags));
    REQUIRE(analyze(tu, types, diags));
  }
  /// The initialiser of file-scope variable `name`.
  const Expr *init(const std::string &name) const {
    for (Decl *d : tu.decls)
      if (auto *v = dynamic_cast<VarDecl *>(d))
        if (v->name == name && v->init)
          return v->init;
    FAIL("no initialised variable " << name);
    return nullptr;
  }
  int64_t foldedInt(const std::string &name) const {
    int64_t v = 0;
    REQUIRE(foldInt(init(name), v));
    return v;
  }
};

} // namespace

TEST_CASE("wrapInt and truncateToType wrap as two's complement", "[frontend][const_eval]") {
  CHECK(wrapInt(255, 8, true) == -1);
  CHECK(wrapInt(-1, 8, false) == 255);
  CHECK(wrapInt(0x1'0000'0005, 32, true) == 5);
  CHECK(wrapInt(0x8000'0000, 32, true) == -2147483648LL);
  CHECK(wrapInt(-7, 64, false) == -7);
  TypeContext types;
  CHECK(truncateToType(300, types.get(TypeKind::UChar)) == 44);
  CHECK(truncateToType(-1, types.uintTy()) == 4294967295LL);
  CHECK(truncateToType(5, types.boolTy()) == 1);
  CHECK(truncateToType(-5, types.floatTy()) == -5); // not an integer type: kept
  CHECK(truncateToType(-5, nullptr) == -5);         // not typed yet: kept
}

TEST_CASE("foldInt folds untyped integer expressions in int64_t", "[frontend][const_eval]") {
  Trees t;
  int64_t v = 0;
  // (7 + 3) * 2 / 4 - 1 % 1
  REQUIRE(
      foldInt(t.bin(BinaryOp::Sub,
                    t.bin(BinaryOp::Div,
                          t.bin(BinaryOp::Mul, t.bin(BinaryOp::Add, t.lit(7), t.lit(3)), t.lit(2)),
                          t.lit(4)),
                    t.bin(BinaryOp::Rem, t.lit(1), t.lit(1))),
              v));
  CHECK(v == 5);
  REQUIRE(foldInt(t.bin(BinaryOp::Shl, t.lit(1), t.lit(40)), v));
  CHECK(v == (int64_t(1) << 40)); // no int type to wrap to before sema
  REQUIRE(foldInt(t.bin(BinaryOp::Shr, t.lit(-16), t.lit(2)), v));
  CHECK(v == -4);
  REQUIRE(foldInt(t.un(UnaryOp::BitNot, t.lit(0)), v));
  CHECK(v == -1);
  REQUIRE(foldInt(t.un(UnaryOp::Not, t.lit(3)), v));
  CHECK(v == 0);
  REQUIRE(foldInt(t.un(UnaryOp::Minus, t.lit(8)), v));
  CHECK(v == -8);
  REQUIRE(foldInt(t.cond(t.bin(BinaryOp::Lt, t.lit(1), t.lit(2)), t.lit(64), t.lit(32)), v));
  CHECK(v == 64);
  REQUIRE(foldInt(t.bin(BinaryOp::LogOr, t.lit(0), t.bin(BinaryOp::Comma, t.lit(9), t.lit(0))), v));
  CHECK(v == 0);
}

TEST_CASE("foldInt refuses what is not an integer constant", "[frontend][const_eval]") {
  Trees t;
  int64_t v = 0;
  CHECK_FALSE(foldInt(nullptr, v));
  CHECK_FALSE(foldInt(t.flit(1.5), v));
  Expr *x = t.tu.make<Expr>(ExprKind::Ident);
  CHECK_FALSE(foldInt(t.bin(BinaryOp::Add, t.lit(1), x), v));
  CHECK_FALSE(foldInt(t.un(UnaryOp::PreInc, t.lit(1)), v));
  CHECK_FALSE(foldInt(t.bin(BinaryOp::Assign, t.lit(1), t.lit(2)), v));
  // sizeof is known only once sema has typed the expression.
  Expr *size = t.tu.make<Expr>(ExprKind::SizeofExpr);
  size->operands = {t.lit(1)};
  CHECK_FALSE(foldInt(size, v));
}

TEST_CASE("foldInt names the division by zero that stopped it", "[frontend][const_eval]") {
  Trees t;
  int64_t v = 0;
  Expr *div = t.bin(BinaryOp::Rem, t.lit(7), t.bin(BinaryOp::Sub, t.lit(2), t.lit(2)));
  const Expr *culprit = nullptr;
  CHECK_FALSE(foldInt(t.bin(BinaryOp::Add, t.lit(1), div), v, &culprit));
  CHECK(culprit == div);
  culprit = nullptr;
  CHECK_FALSE(foldInt(t.flit(2), v, &culprit));
  CHECK(culprit == nullptr);
}

TEST_CASE("foldInt after sema follows the C types", "[frontend][const_eval]") {
  Program p("enum { A = 3 };\n"
            "const int N = A * 4;\n"
            "int wrapped = 1 << 31;\n"
            "unsigned udiv = -1u / 2;\n"
            "int sdiv = -1 / 2;\n"
            "unsigned ushr = 0xffffffffu >> 28;\n"
            "int sshr = -1 >> 28;\n"
            "int ucmp = -1 < 0u;\n"
            "int named = N + warpSize;\n"
            "int sz = sizeof(double) * 2;\n"
            "unsigned char narrow = (unsigned char)300;\n");
  CHECK(p.foldedInt("wrapped") == -2147483648LL);
  CHECK(p.foldedInt("udiv") == 2147483647);
  CHECK(p.foldedInt("sdiv") == 0);
  CHECK(p.foldedInt("ushr") == 15);
  CHECK(p.foldedInt("sshr") == -1);
  CHECK(p.foldedInt("ucmp") == 0); // -1 converts to unsigned: not below 0u
  CHECK(p.foldedInt("named") == 44);
  CHECK(p.foldedInt("sz") == 16);
  CHECK(p.foldedInt("narrow") == 44);
}

TEST_CASE("foldArith folds the floating-point constants of initialisers",
          "[frontend][const_eval]") {
  Program p("float third = 1.0f / 3;\n"
            "double half = 1 / 2.0;\n"
            "float narrowed = (float)0.1;\n"
            "int truncated = (int)2.75;\n"
            "double neg = -(2.5 * 2);\n"
            "int plain = 6 * 7;\n");
  ConstValue v;
  REQUIRE(foldArith(p.init("third"), v));
  CHECK(v.isFloat);
  CHECK(static_cast<float>(v.f) == 1.0f / 3.0f);
  REQUIRE(foldArith(p.init("half"), v));
  CHECK(v.f == 0.5);
  REQUIRE(foldArith(p.init("narrowed"), v));
  CHECK(v.f == static_cast<double>(0.1f));
  REQUIRE(foldArith(p.init("truncated"), v));
  CHECK_FALSE(v.isFloat);
  CHECK(v.i == 2);
  REQUIRE(foldArith(p.init("neg"), v));
  CHECK(v.f == -5.0);
  REQUIRE(foldArith(p.init("plain"), v));
  CHECK_FALSE(v.isFloat);
  CHECK(v.i == 42);
  int64_t i = 0;
  CHECK_FALSE(foldInt(p.init("half"), i)); // floating point is foldArith's alone
}
