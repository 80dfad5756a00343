// Kern IR utilities: type names, the text printer (`kern emit --ir`) and the verifier.
#include "ir/ir.h"

#include <sstream>

namespace kern::ir {

unsigned Type::bits() const {
  switch (kind) {
  case TypeKind::Void:
    return 0;
  case TypeKind::Bool:
    return 1;
  case TypeKind::I8:
    return 8;
  case TypeKind::I16:
    return 16;
  case TypeKind::I32:
  case TypeKind::F32:
    return 32;
  case TypeKind::I64:
  case TypeKind::F64:
  case TypeKind::Ptr:
    return 64;
  case TypeKind::B128:
    return 128;
  }
  return 0;
}

std::string Type::str() const {
  switch (kind) {
  case TypeKind::Void:
    return "void";
  case TypeKind::Bool:
    return "bool";
  case TypeKind::I8:
  case TypeKind::I16:
  case TypeKind::I32:
  case TypeKind::I64:
    return (isSigned ? "i" : "u") + std::to_string(bits());
  case TypeKind::F32:
    return "f32";
  case TypeKind::F64:
    return "f64";
  case TypeKind::Ptr:
    return std::string("ptr.") + frontend::addrSpaceName(space);
  case TypeKind::B128:
    return "b128";
  }
  return "?";
}

namespace {

const char *binaryName(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add:
    return "add";
  case BinaryOp::Sub:
    return "sub";
  case BinaryOp::Mul:
    return "mul";
  case BinaryOp::Div:
    return "div";
  case BinaryOp::Rem:
    return "rem";
  case BinaryOp::Shl:
    return "shl";
  case BinaryOp::Shr:
    return "shr";
  case BinaryOp::And:
    return "and";
  case BinaryOp::Or:
    return "or";
  case BinaryOp::Xor:
    return "xor";
  case BinaryOp::Lt:
    return "lt";
  case BinaryOp::Le:
    return "le";
  case BinaryOp::Gt:
    return "gt";
  case BinaryOp::Ge:
    return "ge";
  case BinaryOp::Eq:
    return "eq";
  case BinaryOp::Ne:
    return "ne";
  case BinaryOp::Min:
    return "min";
  case BinaryOp::Max:
    return "max";
  }
  return "?";
}

const char *builtinVarName(BuiltinVar b) {
  static const char *names[] = {"threadIdx.x", "threadIdx.y", "threadIdx.z", "blockIdx.x",
                                "blockIdx.y",  "blockIdx.z",  "blockDim.x",  "blockDim.y",
                                "blockDim.z",  "gridDim.x",   "gridDim.y",   "gridDim.z",
                                "warpSize",    "laneid"};
  return names[static_cast<int>(b)];
}

std::string escape(const std::string &s) {
  std::string out;
  for (char c : s) {
    switch (c) {
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    default:
      out += c;
    }
  }
  return out;
}

class Printer {
public:
  explicit Printer(const Module &m) : m_(m) {}
  std::ostringstream os;

  void function(const Function &f) {
    static const char *kinds[] = {"kernel", "device", "host"};
    os << kinds[static_cast<int>(f.kind)] << " " << f.returnType.str() << " @" << f.name << "(";
    for (size_t i = 0; i < f.params.size(); ++i) {
      os << (i ? ", " : "") << f.params[i]->type.str() << " %" << f.params[i]->name;
      if (f.kind == FunctionKind::Kernel && i < f.paramOffsets.size())
        os << " @" << f.paramOffsets[i];
    }
    os << ")";
    if (f.kind == FunctionKind::Kernel)
      os << " params=" << f.paramBytes << "B shared=" << f.staticSharedBytes << "B"
         << (f.usesBarriers ? " barriers" : "");
    os << " {\n";
    for (auto *s : f.slots)
      os << "  local $" << s->name << "." << s->id << " : " << s->size << "B align " << s->align
         << (s->direct ? " direct" : "") << "\n";
    block(f.body, 1);
    os << "}\n";
  }

  void indent(int n) {
    for (int i = 0; i < n; ++i)
      os << "  ";
  }

  std::string site(SiteId id) {
    if (!id || id >= m_.sites.size())
      return "";
    auto &s = m_.sites[id];
    return " !" + std::to_string(id) + " " + std::to_string(s.loc.line) + ":" +
           std::to_string(s.loc.col);
  }

  void block(const Block *b, int d) {
    if (!b)
      return;
    for (auto *s : b->stmts)
      stmt(s, d);
  }

  void stmt(const Stmt *s, int d) {
    indent(d);
    switch (s->kind) {
    case StmtKind::Block:
      os << "{\n";
      block(s->body ? s->body : s->thenBody, d + 1);
      indent(d);
      os << "}\n";
      break;
    case StmtKind::Assign:
      os << "%" << s->var->name << "." << s->var->id << " = " << expr(s->value) << "\n";
      break;
    case StmtKind::Store:
      os << "store." << frontend::addrSpaceName(s->space) << " " << s->value->type.str() << " "
         << expr(s->value) << " -> " << expr(s->addr) << site(s->site) << "\n";
      break;
    case StmtKind::If:
      os << (!s->isBranch   ? "if.pred "
             : s->gpuBranch ? "if "
                            : "if.gpupred ")
         << expr(s->cond) << site(s->site) << " {\n";
      block(s->thenBody, d + 1);
      if (s->elseBody) {
        indent(d);
        os << "} else {\n";
        block(s->elseBody, d + 1);
      }
      indent(d);
      os << "}\n";
      break;
    case StmtKind::Loop: {
      static const char *const shapes[] = {"",          ".skip-entry", ".unrolled", ".partial4",
                                           ".runtime4", ".runtime16",  ".endless"};
      os << "loop" << shapes[static_cast<int>(s->loopShape)] << site(s->site) << " {\n";
    }
      if (s->preCond && !s->preCond->stmts.empty()) {
        indent(d + 1);
        os << "precond:\n";
        block(s->preCond, d + 2);
      }
      if (s->testFirst && s->cond) {
        indent(d + 1);
        os << "while " << expr(s->cond) << "\n";
      }
      block(s->body, d + 1);
      if (s->step && !s->step->stmts.empty()) {
        indent(d + 1);
        os << "step:\n";
        block(s->step, d + 2);
      }
      if (!s->testFirst && s->cond) {
        indent(d + 1);
        os << "while " << expr(s->cond) << "\n";
      }
      indent(d);
      os << "}\n";
      break;
    case StmtKind::Break:
      os << "break\n";
      break;
    case StmtKind::Continue:
      os << "continue\n";
      break;
    case StmtKind::Return:
      os << "return" << (s->value ? " " + expr(s->value) : "") << "\n";
      break;
    case StmtKind::Eval:
      os << expr(s->value) << "\n";
      break;
    case StmtKind::Printf:
      if (s->printfStream == 0)
        os << (s->var ? "%" + s->var->name + "." + std::to_string(s->var->id) + " = " : "")
           << "snprintf " << expr(s->addr) << ", " << expr(s->value) << ", ";
      else
        os << (s->printfStream == 4   ? "scanf " + expr(s->value) + ", " + expr(s->addr) + ", "
               : s->printfStream == 3 ? "fprintf " + expr(s->value) + ", "
               : s->printfStream == 2 ? "fprintf stderr, "
                                      : "printf ");
      if (s->format)
        os << expr(s->format);
      else
        os << "\"" << escape(s->text) << "\"";
      for (auto *a : s->args)
        os << ", " << expr(a);
      os << site(s->site) << "\n";
      break;
    case StmtKind::Launch:
      os << "launch @" << s->kernel->name << "<<<(" << expr(s->grid[0]) << ", " << expr(s->grid[1])
         << ", " << expr(s->grid[2]) << "), (" << expr(s->blockDim[0]) << ", "
         << expr(s->blockDim[1]) << ", " << expr(s->blockDim[2]) << "), " << expr(s->sharedBytes)
         << ", " << expr(s->stream) << ">>>(";
      for (size_t i = 0; i < s->args.size(); ++i)
        os << (i ? ", " : "") << expr(s->args[i]);
      os << ")" << site(s->site) << "\n";
      break;
    case StmtKind::Barrier:
      os << "barrier" << site(s->site) << "\n";
      break;
    case StmtKind::Alloca:
      os << "%" << s->var->name << "." << s->var->id << " = alloca " << expr(s->value);
      for (auto *a : s->args)
        os << " * " << expr(a);
      os << site(s->site) << "\n";
      break;
    case StmtKind::StackSave:
      os << "%" << s->var->name << "." << s->var->id << " = stacksave\n";
      break;
    case StmtKind::StackRestore:
      os << "stackrestore " << expr(s->value) << "\n";
      break;
    }
  }

  std::string expr(const Expr *e) {
    if (!e)
      return "<null>";
    std::ostringstream o;
    switch (e->kind) {
    case ExprKind::Const:
      if (e->type.isFloat()) {
        std::ostringstream f;
        f.precision(17);
        f << e->floatValue;
        o << e->type.str() << " " << f.str();
      } else if (e->type.isPtr())
        o << "null";
      else
        o << e->type.str() << " "
          << (e->type.isSigned ? std::to_string(e->intValue)
                               : std::to_string(static_cast<uint64_t>(e->intValue)));
      break;
    case ExprKind::VarRef:
      o << "%" << e->var->name << "." << e->var->id;
      break;
    case ExprKind::BuiltinVar:
      o << builtinVarName(e->builtinVar);
      break;
    case ExprKind::Unary:
      o << (e->unaryOp == UnaryOp::Neg       ? "neg"
            : e->unaryOp == UnaryOp::BitNot  ? "not"
            : e->unaryOp == UnaryOp::Bitcast ? "bitcast." + e->type.str()
                                             : std::string("lnot"))
        << "(" << expr(e->ops[0]) << ")";
      break;
    case ExprKind::Binary:
      o << binaryName(e->binaryOp) << "." << e->ops[0]->type.str() << "(" << expr(e->ops[0]) << ", "
        << expr(e->ops[1]) << ")";
      break;
    case ExprKind::Cast:
      o << "cast." << e->type.str() << "(" << expr(e->ops[0]) << ")";
      break;
    case ExprKind::Select:
      o << "select(" << expr(e->ops[0]) << ", " << expr(e->ops[1]) << ", " << expr(e->ops[2])
        << ")";
      break;
    case ExprKind::Load:
      o << "load." << frontend::addrSpaceName(e->space) << "." << e->type.str() << "("
        << expr(e->ops[0]) << ")" << site(e->site);
      break;
    case ExprKind::Call:
    case ExprKind::Intrinsic:
      o << (e->kind == ExprKind::Call ? (e->callee ? "call @" + e->callee->name : "call.indirect")
                                      : std::string("@") + intrinsicName(e->intrinsic))
        << "(";
      for (size_t i = 0; i < e->ops.size(); ++i)
        o << (i ? ", " : "") << expr(e->ops[i]);
      o << ")";
      if (e->site)
        o << site(e->site);
      break;
    case ExprKind::StringConst:
      o << "\"" << escape(e->text) << "\"";
      break;
    case ExprKind::GlobalAddr:
      o << "&@" << e->global->name;
      break;
    case ExprKind::FunctionAddr:
      o << "&" << (e->callee ? e->callee->name : std::string("?"));
      break;
    case ExprKind::SharedAddr:
      o << "shared+" << e->intValue;
      break;
    case ExprKind::LocalAddr:
      o << "&$" << e->slot->name << "." << e->slot->id;
      break;
    case ExprKind::ParamAddr:
      o << "param+" << e->intValue;
      break;
    case ExprKind::PtrAdd:
      o << "ptradd." << e->type.str() << "(" << expr(e->ops[0]) << ", " << expr(e->ops[1]) << ")";
      break;
    }
    return o.str();
  }

private:
  const Module &m_;
};

} // namespace

std::string print(const Function &f, const Module &m) {
  Printer p(m);
  p.function(f);
  return p.os.str();
}

std::string print(const Module &m) {
  Printer p(m);
  p.os << "; kern IR: " << m.sourceName << "\n";
  for (auto *g : m.globals)
    p.os << "global @" << g->name << " : " << frontend::addrSpaceName(g->space) << " " << g->size
         << "B align " << g->align << "\n";
  if (!m.hostFunctionTable.empty()) {
    p.os << "fntable";
    for (size_t i = 0; i < m.hostFunctionTable.size(); ++i)
      p.os << " " << i + 1 << ":"
           << (m.hostFunctionTable[i] ? "@" + m.hostFunctionTable[i]->name : "(device)");
    p.os << "\n";
  }
  for (auto *f : m.functions) {
    p.os << "\n";
    p.function(*f);
  }
  return p.os.str();
}

namespace {

struct Verifier {
  std::string err;
  int loopDepth = 0;
  const Function *fn = nullptr;

  void fail(const std::string &m) {
    if (err.empty())
      err = "in @" + (fn ? fn->name : std::string("?")) + ": " + m;
  }

  void expr(const Expr *e) {
    if (!e) {
      fail("null expression");
      return;
    }
    for (auto *o : e->ops)
      expr(o);
    switch (e->kind) {
    case ExprKind::Binary:
      if (e->ops.size() != 2)
        return fail("binary needs two operands");
      if (e->ops[0]->type != e->ops[1]->type &&
          !(e->binaryOp == BinaryOp::Shl || e->binaryOp == BinaryOp::Shr))
        fail("binary operand types differ: " + e->ops[0]->type.str() + " vs " +
             e->ops[1]->type.str());
      break;
    case ExprKind::Select:
      if (!e->ops[0]->type.isBool())
        fail("select condition must be bool");
      break;
    case ExprKind::Load:
      if (!e->ops[0]->type.isPtr())
        fail("load address must be a pointer");
      break;
    case ExprKind::PtrAdd:
      if (!e->ops[0]->type.isPtr() || e->ops[1]->type.kind != TypeKind::I64)
        fail("ptradd needs (ptr, i64)");
      break;
    case ExprKind::VarRef:
      if (!e->var)
        fail("varref without var");
      break;
    default:
      break;
    }
  }

  void block(const Block *b) {
    if (!b)
      return;
    for (auto *s : b->stmts)
      stmt(s);
  }

  void stmt(const Stmt *s) {
    switch (s->kind) {
    case StmtKind::Assign:
      expr(s->value);
      if (s->var && s->value && s->var->type != s->value->type)
        fail("assign of " + s->value->type.str() + " to %" + s->var->name + " of " +
             s->var->type.str());
      break;
    case StmtKind::Store:
      expr(s->addr);
      expr(s->value);
      if (s->addr && !s->addr->type.isPtr())
        fail("store address must be a pointer");
      break;
    case StmtKind::If:
      expr(s->cond);
      if (s->cond && !s->cond->type.isBool())
        fail("if condition must be bool");
      block(s->thenBody);
      block(s->elseBody);
      break;
    case StmtKind::Loop:
      ++loopDepth;
      block(s->preCond);
      if (s->cond) {
        expr(s->cond);
        if (!s->cond->type.isBool())
          fail("loop condition must be bool");
      }
      block(s->body);
      block(s->step);
      --loopDepth;
      break;
    case StmtKind::Break:
    case StmtKind::Continue:
      if (loopDepth == 0)
        fail("break/continue outside a loop");
      break;
    case StmtKind::Return:
      if (s->value)
        expr(s->value);
      break;
    case StmtKind::Eval:
      expr(s->value);
      break;
    case StmtKind::Printf:
      if (s->value)
        expr(s->value);
      if (s->addr)
        expr(s->addr);
      if (s->format)
        expr(s->format);
      for (auto *a : s->args)
        expr(a);
      break;
    case StmtKind::Launch:
      for (auto *a : s->args)
        expr(a);
      break;
    case StmtKind::Alloca:
    case StmtKind::StackSave:
    case StmtKind::StackRestore:
      if (fn->kind != FunctionKind::Host)
        fail("stack allocation outside host code");
      if (s->kind != StmtKind::StackRestore && !(s->var && s->var->type.isPtr()))
        fail("stack allocation into a variable that is not a pointer");
      if (s->value)
        expr(s->value);
      for (auto *a : s->args) {
        expr(a);
        if (a && a->type != Type::i64(true))
          fail("alloca bound of " + a->type.str());
      }
      break;
    default:
      break;
    }
  }
};

} // namespace

std::string verify(const Module &m) {
  Verifier v;
  for (auto *f : m.functions) {
    v.fn = f;
    v.block(f->body);
    if (!v.err.empty())
      break;
  }
  return v.err;
}

} // namespace kern::ir
