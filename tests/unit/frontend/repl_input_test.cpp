// The REPL's reading of an input with the grammar (frontend/repl_input.h): the kind, name and
// range of each piece, and when an input is complete.
#include "frontend/repl_input.h"

#include <catch2/catch.hpp>

#include <string>

using kern::frontend::InputPiece;
using kern::frontend::InputPieceKind;
using kern::frontend::isReplInputComplete;
using kern::frontend::readReplInput;
using kern::frontend::ReplInput;

namespace {

std::string textOf(const std::string &input, const InputPiece &p) {
  return input.substr(p.begin, p.end - p.begin);
}

} // namespace

TEST_CASE("repl input: definitions, declarations, statements and a final expression") {
  const std::string in = "__global__ void k(float *a, int n) {\n"
                         "  a[threadIdx.x] = n;\n"
                         "}\n"
                         "int n = 8, *p;\n"
                         "cudaMalloc(&p, n);\n"
                         "n * 2";
  ReplInput r = readReplInput(in);
  REQUIRE(r.pieces.size() == 4);
  CHECK(r.pieces[0].kind == InputPieceKind::FunctionDefinition);
  CHECK(r.pieces[0].name == "k");
  CHECK(r.pieces[0].parameterCount == 2);
  CHECK(r.pieces[0].line == 1);
  CHECK(textOf(in, r.pieces[0]).rfind("__global__", 0) == 0);
  CHECK(textOf(in, r.pieces[0]).back() == '}');
  CHECK(r.pieces[1].kind == InputPieceKind::Variable);
  CHECK(r.pieces[1].line == 4);
  REQUIRE(r.pieces[1].declarators.size() == 2);
  CHECK(r.pieces[1].declarators[0].name == "n");
  CHECK(r.pieces[1].declarators[0].hasInit);
  CHECK(in.substr(r.pieces[1].declarators[0].initBegin,
                  r.pieces[1].declarators[0].initEnd - r.pieces[1].declarators[0].initBegin) ==
        "8");
  CHECK(r.pieces[1].declarators[1].name == "p");
  CHECK(in.substr(r.pieces[1].declarators[1].begin,
                  r.pieces[1].declarators[1].end - r.pieces[1].declarators[1].begin) == "*p");
  CHECK(!r.pieces[1].declarators[1].hasInit);
  CHECK(r.pieces[2].kind == InputPieceKind::Statement);
  CHECK(textOf(in, r.pieces[2]) == "cudaMalloc(&p, n);");
  CHECK(r.pieces[3].kind == InputPieceKind::Expression);
  CHECK(textOf(in, r.pieces[3]) == "n * 2");
  CHECK(r.pieces[3].line == 6);
  CHECK(!r.definesMain);
}

TEST_CASE("repl input: prototypes against function pointers") {
  ReplInput r = readReplInput("__device__ float f(float);\nint (*fp)(int) = 0;\nint *g(void);");
  REQUIRE(r.pieces.size() == 3);
  CHECK(r.pieces[0].kind == InputPieceKind::Prototype);
  CHECK(r.pieces[0].name == "f");
  CHECK(r.pieces[1].kind == InputPieceKind::Variable);
  CHECK(r.pieces[1].name == "fp");
  CHECK(r.pieces[1].declarators.at(0).hasInit);
  CHECK(r.pieces[2].kind == InputPieceKind::Prototype);
  CHECK(r.pieces[2].name == "g");
}

TEST_CASE("repl input: types, and type names from earlier inputs") {
  ReplInput r = readReplInput("struct P { float x; };\ntypedef unsigned int U;\nP * q;\nU u;");
  REQUIRE(r.pieces.size() == 4);
  CHECK(r.pieces[0].kind == InputPieceKind::TypeDefinition);
  CHECK(r.pieces[0].name == "P");
  CHECK(r.pieces[0].declaredTypes == std::vector<std::string>{"P"});
  CHECK(r.pieces[1].kind == InputPieceKind::TypeDefinition);
  CHECK(r.pieces[1].name == "U");
  CHECK(r.pieces[2].kind == InputPieceKind::Variable); // P is a type: a declaration
  CHECK(r.pieces[3].kind == InputPieceKind::Variable);
  // Without the earlier input, `P * q;` is a multiplication.
  ReplInput alone = readReplInput("P * q;");
  REQUIRE(alone.pieces.size() == 1);
  CHECK(alone.pieces[0].kind == InputPieceKind::Statement);
  ReplInput known = readReplInput("P * q;", {"P"});
  REQUIRE(known.pieces.size() == 1);
  CHECK(known.pieces[0].kind == InputPieceKind::Variable);
}

TEST_CASE("repl input: file-scope qualifiers, const, auto and constructor initialisers") {
  const std::string in = "__constant__ float c[4];\nconst int k = 3;\nauto a = 1;\ndim3 g(4, 2);";
  ReplInput r = readReplInput(in);
  REQUIRE(r.pieces.size() == 4);
  CHECK(r.pieces[0].fileScopeQualifier);
  CHECK(!r.pieces[0].isConst);
  CHECK(r.pieces[1].isConst);
  CHECK(!r.pieces[1].fileScopeQualifier);
  CHECK(r.pieces[2].isAuto);
  const kern::frontend::InputDeclarator &g = r.pieces[3].declarators.at(0);
  CHECK(g.constructorInit);
  CHECK(in.substr(g.initBegin, g.initEnd - g.initBegin) == "(4, 2)");
  CHECK(in.substr(r.pieces[3].specifiersBegin,
                  r.pieces[3].specifiersEnd - r.pieces[3].specifiersBegin) == "dim3");
}

TEST_CASE("repl input: control statements, main and directives") {
  const std::string in = "#define N 4\n"
                         "int main() { return 0; }\n"
                         "for (int i = 0; i < N; ++i)\n"
                         "  if (i) x += i; else x = 0;\n"
                         "do { x--; } while (x);\n"
                         "// only a comment\n";
  ReplInput r = readReplInput(in);
  REQUIRE(r.pieces.size() == 4);
  CHECK(r.pieces[0].kind == InputPieceKind::Directive);
  CHECK(r.pieces[0].name == "N");
  CHECK(textOf(in, r.pieces[0]) == "#define N 4");
  CHECK(r.pieces[1].kind == InputPieceKind::FunctionDefinition);
  CHECK(r.pieces[1].name == "main");
  CHECK(in.substr(r.pieces[1].nameBegin, 4) == "main");
  CHECK(r.pieces[1].parameterCount == 0);
  CHECK(r.definesMain);
  CHECK(r.pieces[2].kind == InputPieceKind::Statement);
  CHECK(r.pieces[2].line == 3);
  CHECK(textOf(in, r.pieces[2]).back() == ';');
  CHECK(r.pieces[3].kind == InputPieceKind::Statement);
  CHECK(readReplInput("// nothing but a comment\n").pieces.empty());
  // A directive inside a body stays in it.
  ReplInput body = readReplInput("__global__ void k() {\n#pragma unroll\n for (;;) {}\n}");
  REQUIRE(body.pieces.size() == 1);
  CHECK(body.pieces[0].kind == InputPieceKind::FunctionDefinition);
}

TEST_CASE("repl input: a macro that names a type reads as one") {
  ReplInput r = readReplInput("#define REAL float\n#define N 4\n#define SQ(x) x\n"
                              "__global__ void k(REAL *a) { a[0] = N; }\nREAL r;");
  REQUIRE(r.pieces.size() == 5);
  CHECK(r.pieces[0].declaredTypes == std::vector<std::string>{"REAL"});
  CHECK(r.pieces[1].declaredTypes.empty());
  CHECK(r.pieces[2].declaredTypes.empty());
  CHECK(r.pieces[3].kind == InputPieceKind::FunctionDefinition);
  CHECK(r.pieces[4].kind == InputPieceKind::Variable);
  CHECK(readReplInput("REAL r;", {"REAL"}).pieces.at(0).kind == InputPieceKind::Variable);
}

TEST_CASE("repl input: text that no rule reads runs to the end") {
  const std::string in = "int x = 1;\nx + ;\ny = 2;";
  ReplInput r = readReplInput(in);
  REQUIRE(r.pieces.size() == 2);
  CHECK(r.pieces[1].kind == InputPieceKind::Invalid);
  CHECK(textOf(in, r.pieces[1]) == "x + ;\ny = 2;");
  CHECK(r.pieces[1].line == 2);
}

TEST_CASE("repl input: completeness") {
  CHECK(isReplInputComplete("int x = 1;"));
  CHECK(isReplInputComplete("n * 3"));
  CHECK(isReplInputComplete("x + "));
  CHECK(isReplInputComplete("// a comment"));
  CHECK(!isReplInputComplete("void f() {"));
  CHECK(!isReplInputComplete("printf(\"%d\\n\","));
  CHECK(!isReplInputComplete("int a = 1; /* open"));
  CHECK(isReplInputComplete("int a = 1; /* closed */"));
  CHECK(!isReplInputComplete("printf(\"abc"));
  CHECK(!isReplInputComplete("#define TWO \\"));
  CHECK(isReplInputComplete("#define OPEN {"));
  CHECK(!isReplInputComplete("for (int i = 0; i < 4; ++i)"));
  CHECK(isReplInputComplete("for (int i = 0; i < 4; ++i)\n  s += i;"));
  CHECK(!isReplInputComplete("do { x--; }"));
  CHECK(isReplInputComplete("if (x) { y = 1; }"));
}
