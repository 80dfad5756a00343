// The preprocessor's #if expression evaluator (see pp_expr.h): precedence climbing over the
// tokens, with the first error kept.
#include "frontend/pp_expr.h"

#include "frontend/escapes.h"

#include <cstdlib>
#include <cstring>
#include <map>

namespace kern::frontend::pp_detail {

namespace {

class ExprEvaluator {
public:
  explicit ExprEvaluator(std::vector<PPToken> toks) : exprToks_(std::move(toks)) {}

  int64_t run(std::string &error) {
    int64_t v = evalTernary();
    if (exprError_.empty() && exprPos_ < exprToks_.size())
      exprError_ = "token is not a valid binary operator in a preprocessor subexpression";
    if (exprToks_.empty())
      exprError_ = "expected value in expression";
    error = exprError_;
    return error.empty() ? v : 0;
  }

private:
  std::vector<PPToken> exprToks_;
  size_t exprPos_ = 0;
  std::string exprError_;
  static constexpr int kMaxDepth = 1000;
  int depth_ = 0; // of evalUnary calls in progress

  const std::string &peek() const {
    static const std::string empty;
    return exprPos_ < exprToks_.size() ? exprToks_[exprPos_].text : empty;
  }
  bool accept(const char *op) {
    if (peek() == op) {
      ++exprPos_;
      return true;
    }
    return false;
  }

  int64_t evalTernary() {
    Depth depth(*this);
    if (depth.tooDeep())
      return 0;
    int64_t c = evalBinary(0);
    if (accept("?")) {
      int64_t a = evalTernary();
      if (!accept(":")) {
        if (exprError_.empty())
          exprError_ = "expected ':' in preprocessor expression";
        return 0;
      }
      int64_t b = evalTernary();
      return c ? a : b;
    }
    return c;
  }

  static int precedence(const std::string &op) {
    static const std::map<std::string, int> prec = {
        {"||", 1}, {"&&", 2}, {"|", 3}, {"^", 4},  {"&", 5},  {"==", 6},
        {"!=", 6}, {"<", 7},  {">", 7}, {"<=", 7}, {">=", 7}, {"<<", 8},
        {">>", 8}, {"+", 9},  {"-", 9}, {"*", 10}, {"/", 10}, {"%", 10}};
    auto it = prec.find(op);
    return it == prec.end() ? -1 : it->second;
  }

  int64_t evalBinary(int minPrec) {
    int64_t lhs = evalUnary();
    while (true) {
      std::string op = peek();
      int p = precedence(op);
      if (p < 0 || p < minPrec)
        return lhs;
      ++exprPos_;
      int64_t rhs = evalBinary(p + 1);
      if ((op == "/" || op == "%") && rhs == 0) {
        if (exprError_.empty())
          exprError_ = "division by zero in preprocessor expression";
        return 0;
      }
      lhs = applyBinary(op, lhs, rhs);
    }
  }

  static int64_t applyBinary(const std::string &op, int64_t a, int64_t b) {
    uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
    if (op == "||")
      return a || b;
    if (op == "&&")
      return a && b;
    if (op == "|")
      return a | b;
    if (op == "^")
      return a ^ b;
    if (op == "&")
      return a & b;
    if (op == "==")
      return a == b;
    if (op == "!=")
      return a != b;
    if (op == "<")
      return a < b;
    if (op == ">")
      return a > b;
    if (op == "<=")
      return a <= b;
    if (op == ">=")
      return a >= b;
    if (op == "<<")
      return static_cast<int64_t>(ua << (ub & 63));
    if (op == ">>")
      return a >> (ub & 63);
    if (op == "+")
      return static_cast<int64_t>(ua + ub);
    if (op == "-")
      return static_cast<int64_t>(ua - ub);
    if (op == "*")
      return static_cast<int64_t>(ua * ub);
    if (op == "/")
      return (a == INT64_MIN && b == -1) ? a : a / b;
    if (op == "%")
      return (a == INT64_MIN && b == -1) ? 0 : a % b;
    return 0;
  }

  /// Counts a nested evaluation while it lasts. Deeply nested operands (`((((...`, `- - -...`,
  /// `a ? b : c ? ...`) end the expression with an error long before they could exhaust the
  /// stack.
  struct Depth {
    ExprEvaluator &e;
    explicit Depth(ExprEvaluator &ev) : e(ev) { ++e.depth_; }
    ~Depth() { --e.depth_; }
    bool tooDeep() {
      if (e.depth_ <= kMaxDepth)
        return false;
      if (e.exprError_.empty())
        e.exprError_ = "nesting too deep in preprocessor expression";
      e.exprPos_ = e.exprToks_.size();
      return true;
    }
  };

  int64_t evalUnary() {
    Depth depth(*this);
    if (depth.tooDeep())
      return 0;
    if (accept("+"))
      return evalUnary();
    if (accept("-"))
      return static_cast<int64_t>(0 - static_cast<uint64_t>(evalUnary()));
    if (accept("!"))
      return !evalUnary();
    if (accept("~"))
      return ~evalUnary();
    if (accept("(")) {
      int64_t v = evalTernary();
      if (!accept(")") && exprError_.empty())
        exprError_ = "expected ')' in preprocessor expression";
      return v;
    }
    if (exprPos_ >= exprToks_.size()) {
      if (exprError_.empty())
        exprError_ = "expected value in expression";
      return 0;
    }
    const PPToken &t = exprToks_[exprPos_++];
    if (t.kind == TokKind::Number) {
      std::string digits = t.text;
      while (!digits.empty() && std::strchr("uUlL", digits.back()))
        digits.pop_back();
      char *end = nullptr;
      int base = 10;
      const char *s = digits.c_str();
      if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X'))
        base = 16;
      else if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'b' || digits[1] == 'B')) {
        base = 2;
        s += 2;
      } else if (digits.size() > 1 && digits[0] == '0')
        base = 8;
      uint64_t v = std::strtoull(s, &end, base);
      if (!end || *end != '\0') {
        if (exprError_.empty())
          exprError_ = "invalid integer constant '" + t.text + "' in preprocessor expression";
        return 0;
      }
      return static_cast<int64_t>(v);
    }
    if (t.kind == TokKind::Char) {
      // Decoded as the compiler proper decodes a character constant: '\x41' is 65, '\377' is -1.
      int64_t v = 0;
      if (t.text.size() >= 3)
        decodeCharBody(std::string_view(t.text).substr(1, t.text.size() - 2), v);
      return v;
    }
    if (t.kind == TokKind::Ident)
      return t.text == "true" ? 1 : 0; // unknown identifiers are 0, as C says
    if (exprError_.empty())
      exprError_ = "invalid token at start of a preprocessor expression";
    return 0;
  }
};

} // namespace

int64_t evalExpression(std::vector<PPToken> toks, std::string &error) {
  return ExprEvaluator(std::move(toks)).run(error);
}

} // namespace kern::frontend::pp_detail
