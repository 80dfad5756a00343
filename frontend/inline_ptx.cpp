// Inline PTX translated to C++: each instruction of an asm statement becomes a statement over
// variables that hold the operands, so the rest of kern sees ordinary code (and the counters
// see the loads, stores and arithmetic the instructions do). The instructions translated are
// those CUDA programs commonly write inline (docs/cxx.md lists them); any other is an error at
// the asm statement that names it.
#include "frontend/inline_ptx.h"

#include "frontend/escapes.h"

#include "frontend/antlr_headers.h"
#include "frontend/preprocessor.h"
#include "frontend/source.h"

#include <map>
#include <sstream>

namespace kern::frontend {

namespace {

using P = kern_antlr::KernParser;

/// A PTX type: class b (bits), u, s, f or p (predicate), and width.
struct Type {
  char cls = 0;
  int bits = 0;
  bool isFloat() const { return cls == 'f'; }
  bool operator==(const Type &o) const { return cls == o.cls && bits == o.bits; }
};

bool parseType(const std::string &s, Type &t) {
  if (s.size() < 2 || std::string("busf").find(s[0]) == std::string::npos)
    return false;
  int bits = std::atoi(s.c_str() + 1);
  if (std::to_string(bits) != s.substr(1))
    return false;
  if (s[0] == 'f' ? bits != 32 && bits != 64 : bits != 8 && bits != 16 && bits != 32 && bits != 64)
    return false;
  t = {s[0], bits};
  return true;
}

std::string ctype(Type t) {
  if (t.cls == 'f')
    return t.bits == 32 ? "float" : "double";
  bool s = t.cls == 's';
  switch (t.bits) {
  case 8:
    return s ? "signed char" : "unsigned char";
  case 16:
    return s ? "short" : "unsigned short";
  case 32:
    return s ? "int" : "unsigned int";
  default:
    return s ? "long long" : "unsigned long long";
  }
}

/// `value` (of PTX type `from`) as PTX type `to`: a cast between integers, the bits between a
/// float and an integer of its width.
std::string convert(const std::string &value, Type from, Type to, std::string &error) {
  if (from == to)
    return value;
  if (!from.isFloat() && !to.isFloat())
    return "((" + ctype(to) + ")(" + value + "))";
  if (from.isFloat() && to.isFloat())
    return "((" + ctype(to) + ")(" + value + "))";
  int fb = from.bits, tb = to.bits;
  if (from.isFloat() && fb == 32 && tb <= 32)
    return "((" + ctype(to) + ")__float_as_uint(" + value + "))";
  if (from.isFloat() && fb == 64 && tb == 64)
    return "((" + ctype(to) + ")__double_as_longlong(" + value + "))";
  if (to.isFloat() && tb == 32 && fb <= 32)
    return "__uint_as_float((unsigned int)(" + value + "))";
  if (to.isFloat() && tb == 64 && fb == 64)
    return "__longlong_as_double((long long)(" + value + "))";
  error = "a " + std::to_string(fb) + "-bit value used as a " + std::to_string(tb) + "-bit " +
          (to.isFloat() ? "float" : "integer");
  return value;
}

struct Reg {
  std::string var;
  Type type;
  bool writable = true;
};

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

/// Splits at top-level commas (not inside {} or []).
std::vector<std::string> splitOperands(const std::string &s) {
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  for (char c : s) {
    depth += c == '{' || c == '[' ? 1 : c == '}' || c == ']' ? -1 : 0;
    if (c == ',' && depth == 0) {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!trim(cur).empty())
    out.push_back(trim(cur));
  return out;
}

std::vector<std::string> split(const std::string &s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

class Translator {
public:
  std::string error;

  Translator(const std::vector<std::string> &constraints) {
    for (size_t i = 0; i < constraints.size(); ++i) {
      std::string c = constraints[i];
      bool output = !c.empty() && (c[0] == '=' || c[0] == '+');
      bool readWrite = !c.empty() && c[0] == '+';
      std::string letter = output ? c.substr(1) : c;
      if (!letter.empty() && letter[0] == '&')
        letter = letter.substr(1);
      Type t;
      if (letter == "r")
        t = {'u', 32};
      else if (letter == "l")
        t = {'u', 64};
      else if (letter == "h")
        t = {'u', 16};
      else if (letter == "c")
        t = {'u', 8};
      else if (letter == "f")
        t = {'f', 32};
      else if (letter == "d")
        t = {'f', 64};
      else if (letter == "n" && !output)
        t = {'s', 64};
      else {
        error = "the operand constraint \"" + c + "\" (kern knows r, l, h, c, f, d and n)";
        return;
      }
      std::string var = "__kern_ptx_" + std::to_string(i);
      regs_["%" + std::to_string(i)] = {var, t, output};
      std::string operand = "__kern_asm_operand_" + std::to_string(i);
      prologue_ += ctype(t) + " " + var;
      if (!output || readWrite)
        prologue_ += " = (" + ctype(t) + ")(" + operand + ")";
      prologue_ += "; ";
      if (output)
        epilogue_ += operand + " = " + var + "; ";
    }
  }

  std::string translate(const std::string &templ) {
    if (!error.empty())
      return "";
    // Comments, then statements separated by ';' (braces only scope, which is not needed).
    std::string text;
    for (size_t i = 0; i < templ.size(); ++i) {
      if (templ.compare(i, 2, "//") == 0) {
        while (i < templ.size() && templ[i] != '\n')
          ++i;
        continue;
      }
      char c = templ[i];
      text += c == '{' && !insideOperandBraces(templ, i) ? ' ' : c;
    }
    for (std::string stmt : split(text, ';')) {
      stmt = trim(stmt);
      // Drop the closing braces of scopes (an operand list's braces close before the ';').
      while (!stmt.empty() && stmt.back() == '}' && stmt.find('{') == std::string::npos)
        stmt = trim(stmt.substr(0, stmt.size() - 1));
      while (!stmt.empty() && stmt[0] == '}')
        stmt = trim(stmt.substr(1));
      if (stmt.empty())
        continue;
      instruction(stmt);
      if (!error.empty())
        return "";
    }
    return "{ " + prologue_ + body_ + epilogue_ + "}";
  }

private:
  std::map<std::string, Reg> regs_;
  std::string prologue_, body_, epilogue_;
  int temps_ = 0;

  static bool insideOperandBraces(const std::string &t, size_t at) {
    // A '{' that opens an operand vector follows a ',' or an opcode and a space on its line;
    // a scope's '{' starts a statement. Look back for the last non-space character.
    size_t k = at;
    while (k > 0 && (t[k - 1] == ' ' || t[k - 1] == '\t'))
      --k;
    return k > 0 && t[k - 1] != ';' && t[k - 1] != '\n' && t[k - 1] != '{' && t[k - 1] != '}';
  }

  void fail(const std::string &why) {
    if (error.empty())
      error = why;
  }

  std::string special(const std::string &name, Type &t) {
    t = {'u', 32};
    static const std::map<std::string, std::string> dims = {{"%tid", "threadIdx"},
                                                            {"%ntid", "blockDim"},
                                                            {"%ctaid", "blockIdx"},
                                                            {"%nctaid", "gridDim"}};
    size_t dot = name.find('.');
    if (dot != std::string::npos && dims.count(name.substr(0, dot))) {
      std::string c = name.substr(dot + 1);
      if (c == "x" || c == "y" || c == "z")
        return "(" + dims.at(name.substr(0, dot)) + "." + c + ")";
    }
    const std::string linear =
        "(threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y)";
    const std::string lane = "(" + linear + " & 31u)";
    if (name == "%laneid")
      return lane;
    if (name == "%warpid")
      return "(" + linear + " / 32u)";
    if (name == "%clock")
      return "((unsigned int)clock64())";
    if (name == "%clock64") {
      t = {'u', 64};
      return "((unsigned long long)clock64())";
    }
    if (name == "%lanemask_eq")
      return "(1u << " + lane + ")";
    if (name == "%lanemask_lt")
      return "((1u << " + lane + ") - 1u)";
    if (name == "%lanemask_le")
      return "((2u << " + lane + ") - 1u)";
    if (name == "%lanemask_gt")
      return "(~((2u << " + lane + ") - 1u))";
    if (name == "%lanemask_ge")
      return "(~((1u << " + lane + ") - 1u))";
    if (name == "WARP_SZ")
      return "32u";
    return "";
  }

  std::string read(const std::string &op, Type t) {
    if (auto it = regs_.find(op); it != regs_.end())
      return convert(it->second.var, it->second.type, t, error);
    Type st;
    std::string s = special(op, st);
    if (!s.empty())
      return convert(s, st, t, error);
    if (op.size() > 2 && op[0] == '0' && (op[1] == 'f' || op[1] == 'F') && op.size() == 10)
      return convert("__uint_as_float(0x" + op.substr(2) + "u)", {'f', 32}, t, error);
    if (op.size() > 2 && op[0] == '0' && (op[1] == 'd' || op[1] == 'D') && op.size() == 18)
      return convert("__longlong_as_double(0x" + op.substr(2) + "ll)", {'f', 64}, t, error);
    if (!op.empty() &&
        (std::isdigit(static_cast<unsigned char>(op[0])) || op[0] == '-' || op[0] == '.')) {
      bool isFloat = op.find_first_of(".eE") != std::string::npos && op.compare(0, 2, "0x") != 0 &&
                     op.compare(0, 2, "0X") != 0;
      std::string lit = op;
      if (!isFloat && (lit.back() == 'U' || lit.back() == 'u'))
        lit.pop_back();
      return "((" + ctype(t) + ")(" + lit + (isFloat ? "" : "ll") + "))";
    }
    fail("the operand '" + op + "'");
    return "0";
  }

  void write(const std::string &op, Type t, const std::string &value) {
    auto it = regs_.find(op);
    if (it == regs_.end() || !it->second.writable) {
      fail("'" + op + "' as a destination (an output operand or a .reg variable is needed)");
      return;
    }
    body_ += it->second.var + " = " + convert("(" + value + ")", t, it->second.type, error) + "; ";
  }

  void declare(const std::string &stmt) {
    // .reg .u32 a, b<3>;
    std::istringstream in(stmt);
    std::string reg, type;
    in >> reg >> type;
    Type t;
    if (type.size() < 2 || type[0] != '.' || !parseType(type.substr(1), t)) {
      fail("the register declaration '" + stmt + "'");
      return;
    }
    std::string rest;
    std::getline(in, rest);
    for (std::string name : splitOperands(rest)) {
      name = trim(name);
      int count = 1;
      if (size_t lt = name.find('<'); lt != std::string::npos)
        count = std::atoi(name.c_str() + lt + 1);
      bool numbered = name.find('<') != std::string::npos;
      if (numbered)
        name = name.substr(0, name.find('<'));
      for (int k = 0; k < count; ++k) {
        std::string full = numbered ? name + std::to_string(k) : name;
        std::string var = "__kern_ptx_t" + std::to_string(temps_++);
        regs_[full] = {var, t, true};
        prologue_ += ctype(t) + " " + var + " = 0; ";
      }
    }
  }

  /// The address of `[reg]`, `[reg+imm]` or `[reg-imm]`, as a char pointer.
  std::string address(const std::string &op) {
    if (op.size() < 3 || op.front() != '[' || op.back() != ']') {
      fail("the address operand '" + op + "'");
      return "0";
    }
    std::string in = trim(op.substr(1, op.size() - 2));
    std::string base = in, offset = "0";
    size_t sign = in.find_first_of("+-", 1);
    if (sign != std::string::npos) {
      base = trim(in.substr(0, sign));
      offset = (in[sign] == '-' ? "-" : "") + trim(in.substr(sign + 1));
    }
    return "((char *)(" + read(base, {'u', 64}) + ") + (" + offset + "))";
  }

  void memory(const std::string &opcode, const std::vector<std::string> &mods,
              const std::vector<std::string> &ops, Type t) {
    int lanes = 1;
    for (const std::string &m : mods) {
      if (m == "shared") {
        fail("'" + opcode + "': shared-window addresses (ld.shared/st.shared)");
        return;
      }
      if (m == "v2" || m == "v4")
        lanes = m[1] - '0';
    }
    bool load = opcode == "ld";
    if (ops.size() != 2) {
      fail("'" + opcode + "' with " + std::to_string(ops.size()) + " operands");
      return;
    }
    std::string addr = address(load ? ops[1] : ops[0]);
    std::string list = load ? ops[0] : ops[1];
    std::vector<std::string> values = {list};
    if (lanes > 1) {
      if (list.size() < 2 || list.front() != '{' || list.back() != '}') {
        fail("the vector operand '" + list + "'");
        return;
      }
      values = splitOperands(list.substr(1, list.size() - 2));
      if (static_cast<int>(values.size()) != lanes) {
        fail("the vector operand '" + list + "'");
        return;
      }
    }
    std::string ptr = "((" + ctype(t) + " *)" + addr + ")";
    for (int k = 0; k < lanes; ++k) {
      std::string at = ptr + "[" + std::to_string(k) + "]";
      if (load)
        write(values[k], t, at);
      else
        body_ += at + " = " + read(values[k], t) + "; ";
    }
  }

  void instruction(const std::string &stmt) {
    if (stmt[0] == '@') {
      fail("predicated instructions ('" + stmt + "')");
      return;
    }
    if (stmt.compare(0, 4, ".reg") == 0) {
      declare(stmt);
      return;
    }
    size_t space = stmt.find_first_of(" \t\n");
    std::string opcode = stmt.substr(0, space);
    std::vector<std::string> ops =
        space == std::string::npos ? std::vector<std::string>() : splitOperands(stmt.substr(space));
    std::vector<std::string> parts = split(opcode, '.');
    std::string base = parts[0];
    std::vector<std::string> mods(parts.begin() + 1, parts.end());
    std::vector<Type> types;
    std::map<std::string, bool> has;
    for (const std::string &m : mods) {
      Type t;
      if (parseType(m, t))
        types.push_back(t);
      else
        has[m] = true;
    }
    auto need = [&](size_t n) {
      if (ops.size() != n)
        fail("'" + opcode + "' with " + std::to_string(ops.size()) + " operands (" +
             std::to_string(n) + " expected)");
      return ops.size() == n;
    };
    if (base == "membar" || base == "fence") {
      body_ += has["cta"] ? "__threadfence_block(); " : "__threadfence(); ";
      return;
    }
    if (base == "bar" || base == "barrier") {
      if (!has["sync"] || ops.size() > 1 || (ops.size() == 1 && ops[0] != "0")) {
        fail("'" + stmt + "' (kern translates bar.sync 0, __syncthreads)");
        return;
      }
      body_ += "__syncthreads(); ";
      return;
    }
    if (types.empty()) {
      fail("'" + opcode + "' (no operand type)");
      return;
    }
    Type t = types.back();
    std::string c = ctype(t);
    auto a = [&](size_t i) { return read(ops[i], t); };
    if (base == "ld" || base == "st") {
      memory(base, mods, ops, t);
      return;
    }
    if (base == "mov") {
      if (need(2))
        write(ops[0], t, a(1));
      return;
    }
    static const std::map<std::string, std::string> binary = {
        {"add", "+"}, {"sub", "-"}, {"div", "/"}, {"rem", "%"},
        {"and", "&"}, {"or", "|"},  {"xor", "^"}};
    if (binary.count(base)) {
      if (!need(3))
        return;
      if (has["sat"] || has["cc"]) {
        fail("'" + opcode + "' (saturation and carry are not translated)");
        return;
      }
      if (t.isFloat() && (base == "rem" || base == "and" || base == "or" || base == "xor")) {
        fail("'" + opcode + "'");
        return;
      }
      write(ops[0], t, "(" + c + ")(" + a(1) + " " + binary.at(base) + " " + a(2) + ")");
      return;
    }
    if (base == "mul") {
      if (!need(3))
        return;
      if (t.isFloat() || has["lo"]) {
        write(ops[0], t, "(" + c + ")(" + a(1) + " * " + a(2) + ")");
      } else if (has["wide"] && t.bits <= 32) {
        Type w{t.cls, t.bits * 2};
        write(ops[0], w, "(" + ctype(w) + ")" + a(1) + " * (" + ctype(w) + ")" + a(2));
      } else if (has["hi"] && t.bits == 32) {
        write(ops[0], t,
              std::string(t.cls == 's' ? "__mulhi(" : "__umulhi(") + a(1) + ", " + a(2) + ")");
      } else {
        fail("'" + opcode + "'");
      }
      return;
    }
    if (base == "mad" || base == "fma") {
      if (!need(4))
        return;
      if (t.isFloat()) {
        write(ops[0], t,
              std::string(t.bits == 32 ? "fmaf(" : "fma(") + a(1) + ", " + a(2) + ", " + a(3) +
                  ")");
      } else if (has["lo"]) {
        write(ops[0], t, "(" + c + ")(" + a(1) + " * " + a(2) + " + " + a(3) + ")");
      } else if (has["wide"] && t.bits <= 32) {
        Type w{t.cls, t.bits * 2};
        write(ops[0], w,
              "(" + ctype(w) + ")" + a(1) + " * (" + ctype(w) + ")" + a(2) + " + " +
                  read(ops[3], w));
      } else {
        fail("'" + opcode + "'");
      }
      return;
    }
    if (base == "min" || base == "max") {
      if (!need(3))
        return;
      if (t.isFloat())
        write(ops[0], t,
              std::string(base == "min" ? "fmin" : "fmax") + (t.bits == 32 ? "f(" : "(") + a(1) +
                  ", " + a(2) + ")");
      else
        write(ops[0], t,
              "(" + a(1) + (base == "min" ? " < " : " > ") + a(2) + " ? " + a(1) + " : " + a(2) +
                  ")");
      return;
    }
    if (base == "neg" || base == "not" || base == "abs") {
      if (!need(2))
        return;
      if (base == "neg")
        write(ops[0], t, "(" + c + ")(-" + a(1) + ")");
      else if (base == "not")
        write(ops[0], t, "(" + c + ")(~" + a(1) + ")");
      else if (t.isFloat())
        write(ops[0], t, std::string(t.bits == 32 ? "fabsf(" : "fabs(") + a(1) + ")");
      else
        write(ops[0], t, "(" + a(1) + " < 0 ? (" + c + ")-" + a(1) + " : " + a(1) + ")");
      return;
    }
    if (base == "shl" || base == "shr") {
      if (!need(3) || t.isFloat())
        return fail("'" + opcode + "'");
      // PTX clamps shift amounts: past the width, shl and a logical shr give 0 and an
      // arithmetic shr fills with the sign.
      std::string n = read(ops[2], {'u', 32}), w = std::to_string(t.bits);
      if (base == "shl" || t.cls != 's')
        write(ops[0], t,
              "(" + n + " >= " + w + "u ? (" + c + ")0 : (" + c + ")(" + a(1) +
                  (base == "shl" ? " << " : " >> ") + n + "))");
      else
        write(ops[0], t,
              "(" + c + ")(" + a(1) + " >> (" + n + " >= " + w + "u ? " +
                  std::to_string(t.bits - 1) + "u : " + n + "))");
      return;
    }
    if (base == "popc" || base == "clz" || base == "brev") {
      if (!need(2) || t.bits < 32)
        return fail("'" + opcode + "'");
      bool wide = t.bits == 64;
      std::string arg = read(ops[1], {'u', t.bits});
      if (base == "popc")
        write(ops[0], {'u', 32}, std::string(wide ? "__popcll(" : "__popc(") + arg + ")");
      else if (base == "clz")
        write(ops[0], {'u', 32},
              std::string(wide ? "__clzll((long long)" : "__clz((int)") + arg + ")");
      else
        write(ops[0], t, std::string(wide ? "__brevll(" : "__brev(") + arg + ")");
      return;
    }
    if (base == "bfind") {
      if (!need(2) || t.bits != 32 || has["shiftamt"])
        return fail("'" + opcode + "'");
      std::string x =
          t.cls == 's' ? "(unsigned int)(" + a(1) + " < 0 ? ~" + a(1) + " : " + a(1) + ")" : a(1);
      write(ops[0], {'u', 32}, "(" + x + " == 0u ? 0xffffffffu : 31u - __clz((int)" + x + "))");
      return;
    }
    if (base == "bfe") {
      if (!need(4) || t.bits != 32)
        return fail("'" + opcode + "'");
      std::string pos = "(" + read(ops[2], {'u', 32}) + " & 255u)";
      std::string len = "(" + read(ops[3], {'u', 32}) + " & 255u)";
      std::string x = read(ops[1], {'u', 32});
      // The field, shifted down; bits past bit 31 of the source are its sign (s32) or 0.
      std::string field =
          "(" + pos + " > 31u ? " + (t.cls == 's' ? "(unsigned int)((int)" + x + " >> 31)" : "0u") +
          " : (unsigned int)(" + (t.cls == 's' ? "(int)" : "") + x + " >> " + pos + "))";
      std::string mask = "(" + len + " >= 32u ? 0xffffffffu : (1u << " + len + ") - 1u)";
      if (t.cls == 's') {
        // Sign-extend from bit len-1 of the field.
        std::string sh = "(" + len + " >= 32u ? 0u : 32u - " + len + ")";
        write(ops[0], t,
              "(" + len + " == 0u ? 0 : (int)(" + field + " << " + sh + ") >> " + sh + ")");
      } else {
        write(ops[0], t, "(" + len + " == 0u ? 0u : " + field + " & " + mask + ")");
      }
      return;
    }
    if (base == "bfi") {
      if (!need(5) || t.bits != 32)
        return fail("'" + opcode + "'");
      std::string pos = "(" + read(ops[3], {'u', 32}) + " & 255u)";
      std::string len = "(" + read(ops[4], {'u', 32}) + " & 255u)";
      std::string mask =
          "((" + len + " >= 32u ? 0xffffffffu : (1u << " + len + ") - 1u) << " + pos + ")";
      std::string f = read(ops[1], {'u', 32}), b = read(ops[2], {'u', 32});
      write(ops[0], {'u', 32},
            "(" + pos + " > 31u || " + len + " == 0u ? " + b + " : (" + b + " & ~" + mask +
                ") | ((" + f + " << " + pos + ") & " + mask + "))");
      return;
    }
    if (base == "cvt") {
      if (!need(2) || types.size() != 2)
        return fail("'" + opcode + "'");
      Type to = types[0], from = types[1];
      std::string x = read(ops[1], from);
      std::string mode = has["rni"]   ? "rn"
                         : has["rzi"] ? "rz"
                         : has["rmi"] ? "rd"
                         : has["rpi"] ? "ru"
                         : has["rz"]  ? "rz"
                         : has["rm"]  ? "rd"
                         : has["rp"]  ? "ru"
                                      : "rn";
      if (from.isFloat() && !to.isFloat()) {
        if (to.bits < 32) {
          fail("'" + opcode + "'");
          return;
        }
        std::string fn =
            std::string(from.bits == 32 ? "__float2" : "__double2") +
            (to.bits == 64 ? (to.cls == 's' ? "ll" : "ull") : (to.cls == 's' ? "int" : "uint")) +
            "_" + mode;
        if (from.bits == 64 && to.bits == 64) {
          fail("'" + opcode + "'");
          return;
        }
        write(ops[0], to, fn + "(" + x + ")");
      } else if (from.isFloat() && to.isFloat()) {
        std::string f = from.bits == 32 ? "f" : "";
        std::string r = has["rni"]   ? "rint" + f + "(" + x + ")"
                        : has["rzi"] ? "trunc" + f + "(" + x + ")"
                        : has["rmi"] ? "floor" + f + "(" + x + ")"
                        : has["rpi"] ? "ceil" + f + "(" + x + ")"
                                     : x;
        write(ops[0], to, "(" + ctype(to) + ")(" + r + ")");
      } else if (to.isFloat()) {
        if (mode != "rn")
          return fail("'" + opcode + "' (kern converts integers to floats rounding to nearest)");
        write(ops[0], to, "(" + ctype(to) + ")(" + x + ")");
      } else {
        write(ops[0], to, "(" + ctype(to) + ")(" + x + ")");
      }
      return;
    }
    fail("'" + opcode + "'");
  }
};

/// The text of a string literal token, escapes decoded (enough for PTX templates).
std::string decode(const std::string &lit) {
  std::string out;
  size_t b = lit.find('"'), e = lit.rfind('"');
  for (size_t i = b + 1; i < e; ++i) {
    if (lit[i] != '\\' || i + 1 >= e) {
      out += lit[i];
      continue;
    }
    char c = lit[++i];
    out += c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c == '0' ? ' ' : c;
  }
  return out;
}

} // namespace

std::string translatePtx(const std::string &templ, const std::vector<std::string> &constraints,
                         std::string &error) {
  // %% is a literal %, %N an operand: operands are written %N in the translator's input.
  Translator t(constraints);
  std::string ptx;
  for (size_t i = 0; i < templ.size(); ++i) {
    if (templ[i] == '%' && i + 1 < templ.size() && templ[i + 1] == '%') {
      ptx += '%';
      ++i;
    } else {
      ptx += templ[i];
    }
  }
  std::string out = t.translate(ptx);
  error = t.error;
  return out;
}

void translateInlinePtx(std::vector<std::unique_ptr<antlr4::Token>> &tokens,
                        const PreprocessedSource &src, DiagnosticEngine &diags) {
  std::vector<std::unique_ptr<antlr4::Token>> out;
  int depth = 0;
  for (size_t i = 0; i < tokens.size(); ++i) {
    size_t type = tokens[i]->getType();
    depth += type == P::LeftBrace ? 1 : type == P::RightBrace ? -1 : 0;
    if (type != P::Asm || depth == 0) {
      out.push_back(std::move(tokens[i]));
      continue;
    }
    antlr4::Token *asmToken = tokens[i].get();
    SourceLoc at = src.map(static_cast<uint32_t>(asmToken->getLine()),
                           static_cast<uint32_t>(asmToken->getCharPositionInLine() + 1));
    size_t j = i + 1;
    while (j < tokens.size() &&
           (tokens[j]->getType() == P::Volatile || tokens[j]->getText() == "__volatile__" ||
            tokens[j]->getText() == "goto"))
      ++j;
    if (j >= tokens.size() || tokens[j]->getType() != P::LeftParen) {
      out.push_back(std::move(tokens[i]));
      continue;
    }
    // The parenthesised part: template strings, then ':'-separated sections of operands, each
    // "constraint" (expression).
    size_t close = j;
    for (int d = 0; close < tokens.size(); ++close) {
      size_t t = tokens[close]->getType();
      d += t == P::LeftParen ? 1 : t == P::RightParen ? -1 : 0;
      if (d == 0)
        break;
    }
    size_t end = close + 1;
    if (close >= tokens.size() || end >= tokens.size() || tokens[end]->getType() != P::Semi) {
      out.push_back(std::move(tokens[i]));
      continue;
    }
    std::string templ;
    size_t k = j + 1;
    for (; k < close && tokens[k]->getType() == P::StringLiteral; ++k)
      templ += decode(tokens[k]->getText());
    std::vector<std::string> constraints;
    std::vector<std::pair<size_t, size_t>> operands; // token ranges [first, last)
    int section = 0;
    std::string why;
    while (k < close && why.empty()) {
      size_t t = tokens[k]->getType();
      if (t == P::Colon || t == P::ColonColon) {
        section += t == P::Colon ? 1 : 2;
        ++k;
      } else if (t == P::Comma) {
        ++k;
      } else if (t == P::StringLiteral && section >= 3) {
        ++k; // a clobber: kern keeps no registers or memory in them across the statement
      } else if (t == P::StringLiteral && k + 1 < close &&
                 tokens[k + 1]->getType() == P::LeftParen) {
        constraints.push_back(decode(tokens[k]->getText()));
        if (section == 1 && (constraints.back().empty() ||
                             (constraints.back()[0] != '=' && constraints.back()[0] != '+')))
          why = "an output operand's constraint must begin with '=' or '+'";
        size_t first = k + 2, last = first;
        for (int d = 1; last < close; ++last) {
          size_t u = tokens[last]->getType();
          d += u == P::LeftParen ? 1 : u == P::RightParen ? -1 : 0;
          if (d == 0)
            break;
        }
        operands.push_back({first, last});
        k = last + 1;
      } else {
        why = "an asm operand list kern cannot read";
      }
    }
    std::string text;
    if (why.empty()) {
      text = translatePtx(templ, constraints, why);
      if (!why.empty())
        why = "inline PTX: kern does not translate " + why + " (docs/cxx.md lists what it does)";
    }
    if (!why.empty()) {
      diags.error(at, why);
      text = ";";
    }
    // Lex the translation; each of its tokens stands at the asm keyword. An operand's
    // placeholder becomes the operand's own tokens, in parentheses.
    antlr4::ANTLRInputStream input(lexableText(text));
    kern_antlr::KernLexer lexer(&input);
    lexer.removeErrorListeners();
    antlr4::CommonTokenStream lexed(&lexer);
    lexed.fill();
    auto copyAt = [&](antlr4::Token *t) {
      auto c = std::make_unique<antlr4::CommonToken>(asmToken);
      c->setType(t->getType());
      c->setText(t->getText());
      c->setChannel(t->getChannel());
      return c;
    };
    for (antlr4::Token *t : lexed.getTokens()) {
      if (t->getType() == antlr4::Token::EOF)
        break;
      const std::string name = t->getText();
      const std::string prefix = "__kern_asm_operand_";
      if (t->getType() == P::Identifier && name.compare(0, prefix.size(), prefix) == 0) {
        size_t n = std::stoul(name.substr(prefix.size()));
        auto paren = copyAt(t);
        paren->setType(P::LeftParen);
        paren->setText("(");
        out.push_back(std::move(paren));
        for (size_t m = operands[n].first; m < operands[n].second; ++m)
          out.push_back(std::make_unique<antlr4::CommonToken>(tokens[m].get()));
        auto shut = copyAt(t);
        shut->setType(P::RightParen);
        shut->setText(")");
        out.push_back(std::move(shut));
      } else {
        out.push_back(copyAt(t));
      }
    }
    i = end; // past the ';'
  }
  tokens = std::move(out);
}

} // namespace kern::frontend
