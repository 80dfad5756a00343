// Semantic analysis of .kern programs: scopes, types, CUDA qualifiers and execution sides,
// built-ins, and C's implicit conversions made explicit for the lowering.
#include "frontend/sema.h"

#include <algorithm>
#include <cassert>
#include <map>
#include <set>

namespace kern::frontend {

// ---------------------------------------------------------------------------------------------
// Built-ins table
// ---------------------------------------------------------------------------------------------

static const BuiltinInfo kBuiltins[] = {
#define KERN_BUILTIN(name, sig, side) {name, sig, #side[0]},
#include "frontend/builtins.def"
#undef KERN_BUILTIN
};

int findBuiltin(const std::string &name) {
  static const std::map<std::string, int> index = [] {
    std::map<std::string, int> m;
    for (size_t i = 0; i < sizeof(kBuiltins) / sizeof(kBuiltins[0]); ++i)
      m[kBuiltins[i].name] = static_cast<int>(i);
    return m;
  }();
  auto it = index.find(name);
  return it == index.end() ? -1 : it->second;
}

const BuiltinInfo &builtinInfo(int index) { return kBuiltins[index]; }

namespace {

/// Enumeration constants known without a header: the runtime API's enums.
const std::map<std::string, int64_t> &builtinEnumerators() {
  static const std::map<std::string, int64_t> m = {
      {"cudaMemcpyHostToHost", 0},
      {"cudaMemcpyHostToDevice", 1},
      {"cudaMemcpyDeviceToHost", 2},
      {"cudaMemcpyDeviceToDevice", 3},
      {"cudaMemcpyDefault", 4},
      {"cudaHostAllocDefault", 0},
      {"cudaHostAllocPortable", 1},
      {"cudaHostAllocMapped", 2},
      {"cudaHostAllocWriteCombined", 4},
      {"cudaStreamDefault", 0},
      {"cudaStreamNonBlocking", 1},
      {"cudaEventDefault", 0},
      {"cudaEventBlockingSync", 1},
      {"cudaEventDisableTiming", 2},
      {"cudaErrorNotReady", 600},
      // cudaError_t values (CUDA 12 numbering)
      {"cudaSuccess", 0},
      {"cudaErrorInvalidValue", 1},
      {"cudaErrorMemoryAllocation", 2},
      {"cudaErrorInitializationError", 3},
      {"cudaErrorInvalidConfiguration", 9},
      {"cudaErrorInvalidSymbol", 13},
      {"cudaErrorInvalidDevicePointer", 17},
      {"cudaErrorInvalidMemcpyDirection", 21},
      {"cudaErrorInvalidDeviceFunction", 98},
      {"cudaErrorInvalidDevice", 101},
      {"cudaErrorInvalidResourceHandle", 400},
      {"cudaErrorNotReady", 600},
      {"cudaErrorIllegalAddress", 700},
      {"cudaErrorLaunchOutOfResources", 701},
      {"cudaErrorLaunchTimeout", 702},
      {"cudaErrorAssert", 710},
      {"cudaErrorMisalignedAddress", 716},
      {"cudaErrorLaunchFailure", 719},
  };
  return m;
}

struct Enumerator {
  int64_t value;
  EnumDecl *decl;
};

struct Scope {
  Scope *parent = nullptr;
  std::map<std::string, Decl *> names;
  std::map<std::string, const Type *> typedefs;
  std::map<std::string, const Type *> structs;
  std::map<std::string, Enumerator> enumerators;
};

enum class Side { Host, Device, Both };

class Sema {
public:
  Sema(TranslationUnit &tu, TypeContext &types, DiagnosticEngine &diags)
      : tu_(tu), types_(types), diags_(diags) {
    scope_ = &fileScope_;
    auto &td = fileScope_.typedefs;
    td["size_t"] = types_.get(TypeKind::ULong);
    td["ssize_t"] = types_.get(TypeKind::Long);
    td["ptrdiff_t"] = types_.get(TypeKind::Long);
    td["cudaError_t"] = types_.intTy();
    td["cudaMemcpyKind"] = types_.intTy();
    td["cudaStream_t"] = types_.pointerTo(types_.voidTy(), AddrSpace::Host);
    td["cudaEvent_t"] = types_.pointerTo(types_.voidTy(), AddrSpace::Host);
    td["int8_t"] = types_.get(TypeKind::SChar);
    td["uint8_t"] = types_.get(TypeKind::UChar);
    td["int16_t"] = types_.get(TypeKind::Short);
    td["uint16_t"] = types_.get(TypeKind::UShort);
    td["int32_t"] = types_.intTy();
    td["uint32_t"] = types_.uintTy();
    td["int64_t"] = types_.get(TypeKind::Long);
    td["uint64_t"] = types_.get(TypeKind::ULong);
    td["clock_t"] = types_.get(TypeKind::Long); // x86-64 Linux, as nvcc's host compiler has it
    td["uint3"] = types_.uint3Ty();
    td["dim3"] = types_.dim3Ty();
    declareVectorTypes();
    declareApiStructs();
  }

  /// CUDA's vector types (vector_types.h): char1..4 ... double1..4, with CUDA's alignments
  /// (a float4 is 16-byte aligned, so it moves as one 128-bit access; a float3 is not).
  void declareVectorTypes() {
    struct Base {
      const char *name;
      TypeKind kind;
    };
    static const Base bases[] = {
        {"char", TypeKind::SChar},     {"uchar", TypeKind::UChar},   {"short", TypeKind::Short},
        {"ushort", TypeKind::UShort},  {"int", TypeKind::Int},       {"uint", TypeKind::UInt},
        {"long", TypeKind::Long},      {"ulong", TypeKind::ULong},   {"longlong", TypeKind::LongLong},
        {"ulonglong", TypeKind::ULongLong}, {"float", TypeKind::Float}, {"double", TypeKind::Double}};
    static const char *fieldNames[] = {"x", "y", "z", "w"};
    for (const Base &b : bases) {
      const Type *elem = types_.get(b.kind);
      for (int n = 1; n <= 4; ++n) {
        std::string name = std::string(b.name) + std::to_string(n);
        if (name == "uint3") { // the type of threadIdx, declared already
          vectorTypes_[name] = types_.uint3Ty();
          continue;
        }
        const Type *t = types_.newStruct(name);
        for (int i = 0; i < n; ++i)
          t->record->fields.push_back({fieldNames[i], elem, 0});
        // 2- and 4-component vectors are aligned to their size (capped at 16); 1- and
        // 3-component ones to their element.
        uint64_t align = elem->size();
        if (n == 2 || n == 4)
          align = std::min<uint64_t>(elem->size() * n, 16);
        types_.layoutStruct(t, align);
        fileScope_.typedefs[name] = t;
        vectorTypes_[name] = t;
      }
    }
  }

  const Type *makeStruct(const std::string &name,
                         const std::vector<std::pair<std::string, const Type *>> &fields) {
    const Type *t = types_.newStruct(name);
    for (auto &[n, ft] : fields)
      t->record->fields.push_back({n, ft, 0});
    types_.layoutStruct(t);
    fileScope_.typedefs[name] = t;
    fileScope_.structs[name] = t;
    return t;
  }

  /// cudaDeviceProp and cudaFuncAttributes, laid out as backend/abi.h's KernDeviceProp and
  /// KernFuncAttributes, which the runtime fills.
  void declareApiStructs() {
    const Type *i = types_.intTy(), *z = types_.sizeTy();
    const Type *i3 = types_.arrayOf(i, 3);
    deviceProp_ = makeStruct(
        "cudaDeviceProp",
        {{"name", types_.arrayOf(types_.get(TypeKind::Char), 256)}, {"totalGlobalMem", z},
         {"sharedMemPerBlock", z}, {"regsPerBlock", i}, {"warpSize", i}, {"memPitch", z},
         {"maxThreadsPerBlock", i}, {"maxThreadsDim", i3}, {"maxGridSize", i3},
         {"clockRate", i}, {"totalConstMem", z}, {"major", i}, {"minor", i},
         {"textureAlignment", z}, {"deviceOverlap", i}, {"multiProcessorCount", i},
         {"kernelExecTimeoutEnabled", i}, {"integrated", i}, {"canMapHostMemory", i},
         {"computeMode", i}, {"concurrentKernels", i}, {"ECCEnabled", i}, {"pciBusID", i},
         {"pciDeviceID", i}, {"asyncEngineCount", i}, {"unifiedAddressing", i},
         {"memoryClockRate", i}, {"memoryBusWidth", i}, {"l2CacheSize", i},
         {"maxThreadsPerMultiProcessor", i}, {"sharedMemPerMultiprocessor", z},
         {"regsPerMultiprocessor", i}, {"sharedMemPerBlockOptin", z},
         {"maxBlocksPerMultiProcessor", i}, {"managedMemory", i}, {"isMultiGpuBoard", i}});
    funcAttributes_ = makeStruct(
        "cudaFuncAttributes",
        {{"sharedSizeBytes", z}, {"constSizeBytes", z}, {"localSizeBytes", z},
         {"maxThreadsPerBlock", i}, {"numRegs", i}, {"ptxVersion", i}, {"binaryVersion", i},
         {"cacheModeCA", i}, {"maxDynamicSharedSizeBytes", i}, {"preferredShmemCarveout", i}});
  }

  bool run() {
    for (Decl *d : tu_.decls)
      topLevel(d);
    return !diags_.hasErrors();
  }

private:
  TranslationUnit &tu_;
  TypeContext &types_;
  DiagnosticEngine &diags_;
  Scope fileScope_;
  Scope *scope_;
  std::deque<Scope> scopes_;
  FunctionDecl *fn_ = nullptr; // function being analysed
  Side side_ = Side::Host;
  int loopDepth_ = 0;
  int switchDepth_ = 0;
  std::set<std::string> reportedUnsupported_;
  std::set<EnumDecl *> definedEnums_;
  std::map<std::string, const Type *> vectorTypes_;
  const Type *deviceProp_ = nullptr;
  const Type *funcAttributes_ = nullptr;

  void error(SourceLoc loc, std::string msg) { diags_.error(loc, std::move(msg)); }

  // ---- scopes ----
  void push() {
    scopes_.emplace_back();
    scopes_.back().parent = scope_;
    scope_ = &scopes_.back();
  }
  void pop() { scope_ = scope_->parent; }

  Decl *lookup(const std::string &n) {
    for (Scope *s = scope_; s; s = s->parent) {
      auto it = s->names.find(n);
      if (it != s->names.end())
        return it->second;
    }
    return nullptr;
  }
  const Type *lookupTypedef(const std::string &n) {
    for (Scope *s = scope_; s; s = s->parent) {
      auto it = s->typedefs.find(n);
      if (it != s->typedefs.end())
        return it->second;
    }
    return nullptr;
  }
  const Type *lookupStruct(const std::string &n) {
    for (Scope *s = scope_; s; s = s->parent) {
      auto it = s->structs.find(n);
      if (it != s->structs.end())
        return it->second;
    }
    return nullptr;
  }
  const Enumerator *lookupEnumerator(const std::string &n) {
    for (Scope *s = scope_; s; s = s->parent) {
      auto it = s->enumerators.find(n);
      if (it != s->enumerators.end())
        return &it->second;
    }
    return nullptr;
  }

  // ---- types ----
  const Type *baseType(TypeSyntax *ts) {
    if (ts->structDef)
      return defineStruct(ts->structDef);
    if (!ts->structName.empty()) {
      if (const Type *t = lookupStruct(ts->structName))
        return t;
      // A forward reference: an incomplete struct type.
      const Type *t = types_.newStruct(ts->structName);
      fileScope_.structs[ts->structName] = t;
      return t;
    }
    if (ts->enumDef) {
      defineEnum(static_cast<EnumDecl *>(ts->enumDef));
      return types_.intTy();
    }
    if (!ts->enumName.empty())
      return types_.intTy();
    if (!ts->name.empty()) {
      if (const Type *t = lookupTypedef(ts->name))
        return t;
      error(ts->loc, "unknown type name '" + ts->name + "'");
      return nullptr;
    }
    // Keywords: count them as C does (`unsigned long long int`).
    int nSigned = 0, nUnsigned = 0, nLong = 0, nShort = 0, nInt = 0;
    std::string base;
    for (auto &k : ts->keywords) {
      if (k == "signed" || k == "__signed__")
        ++nSigned;
      else if (k == "unsigned")
        ++nUnsigned;
      else if (k == "long")
        ++nLong;
      else if (k == "short")
        ++nShort;
      else if (k == "int")
        ++nInt;
      else if (!base.empty()) {
        error(ts->loc, "cannot combine '" + base + "' with '" + k + "'");
        return nullptr;
      } else
        base = k;
    }
    if (nSigned && nUnsigned) {
      error(ts->loc, "cannot combine 'signed' with 'unsigned'");
      return nullptr;
    }
    if (base == "void")
      return types_.voidTy();
    if (base == "bool" || base == "_Bool")
      return types_.boolTy();
    if (base == "float")
      return types_.floatTy();
    if (base == "double")
      return types_.doubleTy(); // long double is treated as double
    if (base == "char")
      return types_.get(nUnsigned ? TypeKind::UChar : nSigned ? TypeKind::SChar : TypeKind::Char);
    if (!base.empty()) {
      error(ts->loc, "unknown type '" + base + "'");
      return nullptr;
    }
    if (nShort)
      return types_.get(nUnsigned ? TypeKind::UShort : TypeKind::Short);
    if (nLong >= 2)
      return types_.get(nUnsigned ? TypeKind::ULongLong : TypeKind::LongLong);
    if (nLong == 1)
      return types_.get(nUnsigned ? TypeKind::ULong : TypeKind::Long);
    if (nInt || nSigned || nUnsigned)
      return types_.get(nUnsigned ? TypeKind::UInt : TypeKind::Int);
    error(ts->loc, "missing type specifier");
    return nullptr;
  }

  /// Resolves a TypeSyntax. Pointers are created in `space` (the context's default).
  const Type *resolve(TypeSyntax *ts, AddrSpace space = AddrSpace::Generic) {
    if (!ts)
      return types_.intTy();
    const Type *t = baseType(ts);
    if (!t)
      return nullptr;
    bool constNext = ts->isConst;
    // ops are in C's binding order (`int a[2][3]` is {Array(3), Array(2)}): apply them in turn.
    for (TypeOp &op : ts->ops) {
      if (op.kind == TypeOp::Kind::Pointer) {
        t = types_.pointerTo(t, space, constNext);
        constNext = op.isConst;
        continue;
      }
      uint64_t n = 0;
      if (op.size) {
        int64_t v;
        if (!constantInt(op.size, v))
          return nullptr;
        if (v <= 0) {
          error(op.size->loc, "array size must be positive");
          return nullptr;
        }
        n = static_cast<uint64_t>(v);
      }
      if (t->isVoid()) {
        error(ts->loc, "array of void");
        return nullptr;
      }
      t = types_.arrayOf(t, n);
      constNext = false;
    }
    ts->resolved = t;
    return t;
  }

  const Type *defineStruct(StructDecl *sd) {
    const Type *t = nullptr;
    if (!sd->name.empty()) {
      auto it = scope_->structs.find(sd->name);
      if (it != scope_->structs.end())
        t = it->second;
    }
    if (!sd->isDefinition) {
      if (!t) {
        t = types_.newStruct(sd->name);
        if (!sd->name.empty())
          scope_->structs[sd->name] = t;
      }
      sd->type = t;
      return t;
    }
    if (t && t->record->complete) {
      if (sd->type == t)
        return t; // already defined by this very declaration
      error(sd->loc, "redefinition of 'struct " + sd->name + "'");
      return t;
    }
    if (!t) {
      t = types_.newStruct(sd->name);
      if (!sd->name.empty())
        scope_->structs[sd->name] = t;
    }
    std::set<std::string> seen;
    for (auto &f : sd->fields) {
      const Type *ft = resolve(f.typeSyntax);
      if (!ft)
        continue;
      if (ft->isVoid() || (ft->isStruct() && !ft->record->complete) ||
          (ft->isArray() && ft->count == 0)) {
        error(f.loc, "field '" + f.name + "' has incomplete type '" + ft->str() + "'");
        continue;
      }
      if (!seen.insert(f.name).second) {
        error(f.loc, "duplicate member '" + f.name + "'");
        continue;
      }
      t->record->fields.push_back({f.name, ft, 0});
    }
    types_.layoutStruct(t, sd->quals.alignAs);
    sd->type = t;
    return t;
  }

  void defineEnum(EnumDecl *ed) {
    // An inline definition is reachable both as a declaration and from its declarators.
    if (!definedEnums_.insert(ed).second)
      return;
    int64_t next = 0;
    for (auto &e : ed->enumerators) {
      if (e.value) {
        int64_t v;
        if (constantInt(e.value, v))
          next = v;
      }
      e.resolved = next;
      if (scope_->enumerators.count(e.name) || scope_->names.count(e.name))
        error(e.loc, "redefinition of '" + e.name + "'");
      scope_->enumerators[e.name] = {next, ed};
      ++next;
    }
  }

  // ---- constant expressions ----
  bool constantInt(Expr *e, int64_t &out) {
    if (!check(e))
      return false;
    if (!evalConst(e, out)) {
      error(e->loc, "expression is not an integer constant expression");
      return false;
    }
    return true;
  }

  bool evalConst(Expr *e, int64_t &v) {
    switch (e->kind) {
    case ExprKind::IntLit:
    case ExprKind::CharLit:
      v = static_cast<int64_t>(e->intValue);
      return true;
    case ExprKind::Ident:
      if (e->isEnumConst) {
        v = e->enumValue;
        return true;
      }
      if (e->builtin == kBuiltinWarpSize) {
        v = 32;
        return true;
      }
      // A const integer variable with a constant initialiser (C++ allows it in array sizes).
      if (auto *vd = dynamic_cast<VarDecl *>(e->decl))
        if (vd->type && vd->type->isInteger() && vd->typeSyntax && vd->typeSyntax->isConst &&
            vd->init)
          return evalConst(vd->init, v);
      return false;
    case ExprKind::SizeofType:
    case ExprKind::SizeofExpr:
      v = static_cast<int64_t>(e->intValue);
      return true;
    case ExprKind::Cast: {
      int64_t x;
      if (!e->type->isInteger() || !e->operands[0]->type || !e->operands[0]->type->isInteger())
        return false;
      if (!evalConst(e->operands[0], x))
        return false;
      v = truncate(x, e->type);
      return true;
    }
    case ExprKind::Unary: {
      int64_t x;
      if (!evalConst(e->operands[0], x))
        return false;
      switch (e->unaryOp) {
      case UnaryOp::Plus:
        v = x;
        return true;
      case UnaryOp::Minus:
        v = truncate(-x, e->type);
        return true;
      case UnaryOp::Not:
        v = !x;
        return true;
      case UnaryOp::BitNot:
        v = truncate(~x, e->type);
        return true;
      default:
        return false;
      }
    }
    case ExprKind::Conditional: {
      int64_t c, a, b;
      if (!evalConst(e->operands[0], c) || !evalConst(e->operands[1], a) ||
          !evalConst(e->operands[2], b))
        return false;
      v = c ? a : b;
      return true;
    }
    case ExprKind::Binary: {
      int64_t a, b;
      if (!evalConst(e->operands[0], a) || !evalConst(e->operands[1], b))
        return false;
      const Type *ot = e->operands[0]->type;
      bool uns = ot && ot->isInteger() && !ot->isSigned();
      uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
      switch (e->binaryOp) {
      case BinaryOp::Add:
        v = a + b;
        break;
      case BinaryOp::Sub:
        v = a - b;
        break;
      case BinaryOp::Mul:
        v = a * b;
        break;
      case BinaryOp::Div:
      case BinaryOp::Rem:
        if (b == 0) {
          error(e->loc, "division by zero in a constant expression");
          return false;
        }
        if (e->binaryOp == BinaryOp::Div)
          v = uns ? static_cast<int64_t>(ua / ub) : a / b;
        else
          v = uns ? static_cast<int64_t>(ua % ub) : a % b;
        break;
      case BinaryOp::Shl:
        v = static_cast<int64_t>(ua << (b & 63));
        break;
      case BinaryOp::Shr:
        v = uns ? static_cast<int64_t>(ua >> (b & 63)) : a >> (b & 63);
        break;
      case BinaryOp::Lt:
        v = uns ? ua < ub : a < b;
        break;
      case BinaryOp::Gt:
        v = uns ? ua > ub : a > b;
        break;
      case BinaryOp::Le:
        v = uns ? ua <= ub : a <= b;
        break;
      case BinaryOp::Ge:
        v = uns ? ua >= ub : a >= b;
        break;
      case BinaryOp::Eq:
        v = a == b;
        break;
      case BinaryOp::Ne:
        v = a != b;
        break;
      case BinaryOp::BitAnd:
        v = a & b;
        break;
      case BinaryOp::BitOr:
        v = a | b;
        break;
      case BinaryOp::BitXor:
        v = a ^ b;
        break;
      case BinaryOp::LogAnd:
        v = a && b;
        break;
      case BinaryOp::LogOr:
        v = a || b;
        break;
      case BinaryOp::Comma:
        v = b;
        break;
      default:
        return false;
      }
      v = truncate(v, e->type);
      return true;
    }
    default:
      return false;
    }
  }

  static int64_t truncate(int64_t v, const Type *t) {
    if (!t || !t->isInteger())
      return v;
    unsigned bits = static_cast<unsigned>(t->size() * 8);
    if (t->isBool())
      return v != 0;
    if (bits >= 64)
      return v;
    uint64_t mask = (uint64_t(1) << bits) - 1;
    uint64_t u = static_cast<uint64_t>(v) & mask;
    if (t->isSigned() && (u >> (bits - 1)))
      u |= ~mask;
    return static_cast<int64_t>(u);
  }

  // ---- declarations ----
  void topLevel(Decl *d) {
    switch (d->kind) {
    case DeclKind::Unsupported: {
      auto *u = static_cast<UnsupportedDecl *>(d);
      error(u->loc, u->construct + (u->construct.size() && u->construct.back() == 's'
                                        ? " are not supported"
                                        : " is not supported"));
      return;
    }
    case DeclKind::Struct:
      defineStruct(static_cast<StructDecl *>(d));
      return;
    case DeclKind::Enum:
      defineEnum(static_cast<EnumDecl *>(d));
      return;
    case DeclKind::Typedef:
      declareTypedef(static_cast<TypedefDecl *>(d));
      return;
    case DeclKind::Var:
      globalVar(static_cast<VarDecl *>(d));
      return;
    case DeclKind::Function:
      function(static_cast<FunctionDecl *>(d));
      return;
    }
  }

  void declareTypedef(TypedefDecl *td) {
    const Type *t = resolve(td->typeSyntax);
    if (!t)
      return;
    td->type = t;
    auto it = scope_->typedefs.find(td->name);
    if (it != scope_->typedefs.end() && it->second != t) {
      error(td->loc, "typedef redefinition with different types ('" + t->str() + "' vs '" +
                         it->second->str() + "')");
      return;
    }
    scope_->typedefs[td->name] = t;
  }

  void globalVar(VarDecl *v) {
    v->isGlobalScope = true;
    AddrSpace space = v->quals.constant ? AddrSpace::Constant
                      : v->quals.shared ? AddrSpace::Shared
                      : v->quals.device ? AddrSpace::Global
                                        : AddrSpace::Host;
    if (v->quals.global) {
      error(v->loc, "'__global__' applies only to functions");
      return;
    }
    if (v->quals.shared) {
      // File-scope __shared__ is legal CUDA (shared by every kernel); we support it as such.
    }
    const Type *t = resolve(v->typeSyntax);
    if (!t)
      return;
    (void)space;
    if (t->isVoid()) {
      error(v->loc, "variable '" + v->name + "' has type void");
      return;
    }
    v->type = t;
    if (Decl *prev = fileScope_.names.count(v->name) ? fileScope_.names[v->name] : nullptr) {
      auto *pv = dynamic_cast<VarDecl *>(prev);
      if (!pv || !(pv->quals.isExtern || v->quals.isExtern)) {
        error(v->loc, "redefinition of '" + v->name + "'");
        return;
      }
    }
    fileScope_.names[v->name] = v;
    if (v->init) {
      Side saved = side_;
      side_ = space == AddrSpace::Host ? Side::Host : Side::Device;
      initializer(v, v->init, t);
      side_ = saved;
    }
  }

  void function(FunctionDecl *f) {
    auto &q = f->quals;
    if (q.global && (q.host || q.device)) {
      error(f->loc,
            q.host ? "a kernel cannot also be '__host__'" : "a kernel cannot also be '__device__'");
      return;
    }
    const Type *ret = resolve(f->returnType, q.global || (q.device && !q.host) ? AddrSpace::Generic
                                                                               : AddrSpace::Host);
    if (!ret)
      return;
    if (q.global && !ret->isVoid()) {
      error(f->returnType && f->returnType->loc.isValid() ? f->returnType->loc : f->loc,
            "kernel '" + f->name + "' must return void");
      return;
    }
    if (ret->isArray()) {
      error(f->loc, "function cannot return an array");
      return;
    }
    std::vector<const Type *> params;
    // Kernel pointer parameters point into global memory (the only memory a host can pass).
    AddrSpace pspace = q.global                ? AddrSpace::Global
                       : (q.device && !q.host) ? AddrSpace::Generic
                                               : AddrSpace::Host;
    for (VarDecl *p : f->params) {
      const Type *pt = resolve(p->typeSyntax, pspace);
      if (!pt)
        return;
      if (pt->isArray()) // parameters of array type are pointers
        pt = types_.pointerTo(pt->elem, pspace, p->typeSyntax->isConst);
      if (pt->isVoid()) {
        error(p->loc, "parameter has type void");
        return;
      }
      if (pt->isStruct() && !pt->record->complete) {
        error(p->loc, "parameter has incomplete type '" + pt->str() + "'");
        return;
      }
      p->type = pt;
      p->isParam = true;
      params.push_back(pt);
    }
    f->type = types_.function(ret, params, f->variadic);
    if (f->variadic && !f->quals.global) {
      error(f->loc, "variadic functions are not supported");
      return;
    }
    if (f->name == "main" && (q.global || (q.device && !q.host))) {
      error(f->loc, "'main' must be a host function");
      return;
    }
    if (findBuiltin(f->name) >= 0 && f->name != "main") {
      // A program may declare a C library function itself (e.g. a prototype of printf);
      // defining one is not allowed, since kern provides it.
      if (f->body) {
        error(f->loc, "redefinition of built-in function '" + f->name + "'");
        return;
      }
      return;
    }
    Decl *prev = fileScope_.names.count(f->name) ? fileScope_.names[f->name] : nullptr;
    if (prev) {
      auto *pf = dynamic_cast<FunctionDecl *>(prev);
      if (!pf) {
        error(f->loc, "redefinition of '" + f->name + "' as a different kind of symbol");
        return;
      }
      if (!sameSignature(pf->type, f->type)) {
        error(f->loc, "conflicting types for '" + f->name + "'");
        return;
      }
      if (pf->quals.global != q.global || pf->quals.device != q.device ||
          pf->quals.host != q.host) {
        error(f->loc, "conflicting CUDA qualifiers for '" + f->name + "'");
        return;
      }
      FunctionDecl *def = pf->definition ? pf->definition : (pf->body ? pf : nullptr);
      if (def && f->body) {
        error(f->loc, "redefinition of '" + f->name + "'");
        return;
      }
      if (f->body)
        pf->definition = f;
      else
        f->definition = def;
      if (!f->body)
        return;
    }
    fileScope_.names[f->name] = prev ? prev : f;
    if (f->body) {
      f->definition = f;
      if (prev)
        static_cast<FunctionDecl *>(prev)->definition = f;
      functionBody(f);
    }
  }

  static bool sameSignature(const Type *a, const Type *b) {
    if (a->elem != b->elem || a->params.size() != b->params.size() || a->variadic != b->variadic)
      return false;
    for (size_t i = 0; i < a->params.size(); ++i)
      if (!sameIgnoringSpace(a->params[i], b->params[i]))
        return false;
    return true;
  }

  static bool sameIgnoringSpace(const Type *a, const Type *b) {
    if (a == b)
      return true;
    if (a->isPointer() && b->isPointer())
      return sameIgnoringSpace(a->elem, b->elem);
    return false;
  }

  void functionBody(FunctionDecl *f) {
    fn_ = f;
    side_ = f->quals.global || (f->quals.device && !f->quals.host) ? Side::Device
            : f->quals.device                                      ? Side::Both
                                                                   : Side::Host;
    push();
    for (VarDecl *p : f->params) {
      if (p->name.empty())
        continue;
      if (scope_->names.count(p->name)) {
        error(p->loc, "redefinition of parameter '" + p->name + "'");
        continue;
      }
      scope_->names[p->name] = p;
    }
    // The body's braces share the parameters' scope in C.
    for (Stmt *s : f->body->body)
      stmt(s);
    pop();
    fn_ = nullptr;
    side_ = Side::Host;
  }

  AddrSpace defaultSpace() const {
    return side_ == Side::Host ? AddrSpace::Host : AddrSpace::Generic;
  }

  void localVar(VarDecl *v) {
    if (v->quals.global) {
      error(v->loc, "'__global__' applies only to functions");
      return;
    }
    if (v->quals.constant) {
      error(v->loc, "'__constant__' variables must be declared at file scope");
      return;
    }
    if (v->quals.shared && side_ == Side::Host) {
      error(v->loc, "'__shared__' variables can only be declared in device code");
      return;
    }
    if (v->quals.isStatic && !v->quals.shared) {
      error(v->loc, "static local variables are not supported");
      return;
    }
    const Type *t = resolve(v->typeSyntax, defaultSpace());
    if (!t)
      return;
    if (t->isVoid()) {
      error(v->loc, "variable '" + v->name + "' has type void");
      return;
    }
    if (t->isStruct() && !t->record->complete) {
      error(v->loc, "variable has incomplete type '" + t->str() + "'");
      return;
    }
    if (t->isArray() && t->count == 0 && !(v->quals.shared && v->quals.isExtern) &&
        !(v->init && v->init->kind == ExprKind::InitList)) {
      error(v->loc, "array '" + v->name + "' needs an explicit size");
      return;
    }
    v->type = t;
    if (scope_->names.count(v->name)) {
      error(v->loc, "redefinition of '" + v->name + "'");
      return;
    }
    scope_->names[v->name] = v;
    if (v->init) {
      if (v->quals.shared) {
        error(v->init->loc, "initialization is not supported for '__shared__' variables");
        return;
      }
      initializer(v, v->init, t);
    }
  }

  /// Checks `init` for an object of type `t`; rewrites v->init with conversions.
  void initializer(VarDecl *v, Expr *&init, const Type *t) {
    if (init->kind == ExprKind::InitList) {
      if (t->isArray()) {
        if (t->count && init->operands.size() > t->count) {
          error(init->loc, "excess elements in array initializer");
          return;
        }
        if (t->count == 0) {
          t = types_.arrayOf(t->elem, init->operands.size());
          v->type = t;
        }
        for (auto &e : init->operands)
          initializer(v, e, t->elem);
        init->type = t;
        return;
      }
      if (t->isStruct()) {
        auto &fields = t->record->fields;
        if (init->operands.size() > fields.size()) {
          error(init->loc, "excess elements in struct initializer");
          return;
        }
        for (size_t i = 0; i < init->operands.size(); ++i)
          initializer(v, init->operands[i], fields[i].type);
        init->type = t;
        return;
      }
      if (init->operands.size() == 1) {
        initializer(v, init->operands[0], t);
        init->type = t;
        return;
      }
      error(init->loc, "scalar initializer must have exactly one element");
      return;
    }
    if (!check(init))
      return;
    if (t->isArray()) {
      if (init->kind == ExprKind::StringLit && t->elem->size() == 1) {
        if (t->count && init->stringValue.size() > t->count) {
          error(init->loc, "initializer-string for char array is too long");
          return;
        }
        if (t->count == 0)
          v->type = types_.arrayOf(t->elem, init->stringValue.size() + 1);
        return;
      }
      error(init->loc, "array initializer must be an initializer list");
      return;
    }
    init = convert(init, t, "initializing");
  }

  // ---- statements ----
  void stmt(Stmt *s) {
    if (!s)
      return;
    switch (s->kind) {
    case StmtKind::Compound:
      push();
      for (Stmt *c : s->body)
        stmt(c);
      pop();
      return;
    case StmtKind::Decl:
      for (Decl *d : s->decls) {
        switch (d->kind) {
        case DeclKind::Var:
          localVar(static_cast<VarDecl *>(d));
          break;
        case DeclKind::Struct:
          defineStruct(static_cast<StructDecl *>(d));
          break;
        case DeclKind::Typedef:
          declareTypedef(static_cast<TypedefDecl *>(d));
          break;
        case DeclKind::Enum:
          defineEnum(static_cast<EnumDecl *>(d));
          break;
        case DeclKind::Function:
          error(d->loc, "function declarations inside functions are not supported");
          break;
        case DeclKind::Unsupported:
          topLevel(d);
          break;
        }
      }
      return;
    case StmtKind::Expr:
      if (s->expr)
        check(s->expr);
      return;
    case StmtKind::If:
      s->cond = condition(s->cond);
      scopedStmt(s->then);
      scopedStmt(s->elseStmt);
      return;
    case StmtKind::For:
      push();
      if (s->init)
        stmt(s->init);
      if (s->cond)
        s->cond = condition(s->cond);
      if (s->step)
        check(s->step);
      ++loopDepth_;
      scopedStmt(s->then);
      --loopDepth_;
      pop();
      return;
    case StmtKind::While:
      s->cond = condition(s->cond);
      ++loopDepth_;
      scopedStmt(s->then);
      --loopDepth_;
      return;
    case StmtKind::DoWhile:
      ++loopDepth_;
      scopedStmt(s->then);
      --loopDepth_;
      s->cond = condition(s->cond);
      return;
    case StmtKind::Switch: {
      if (!check(s->cond))
        return;
      Expr *c = rvalue(s->cond);
      if (!c->type->isInteger()) {
        error(s->cond->loc,
              "switch condition must have integer type, not '" + c->type->str() + "'");
        return;
      }
      s->cond = convert(c, promote(c->type), "switch");
      ++switchDepth_;
      std::set<int64_t> seen;
      bool hasDefault = false;
      checkSwitchLabels(s->then, seen, hasDefault, s->cond->type);
      scopedStmt(s->then);
      --switchDepth_;
      return;
    }
    case StmtKind::Case:
    case StmtKind::Default:
      if (switchDepth_ == 0) {
        error(s->loc, s->kind == StmtKind::Case ? "'case' statement not in switch statement"
                                                : "'default' statement not in switch statement");
        return;
      }
      if (s->then)
        stmt(s->then);
      return;
    case StmtKind::Break:
      if (loopDepth_ == 0 && switchDepth_ == 0)
        error(s->loc, "'break' statement not in loop or switch statement");
      return;
    case StmtKind::Continue:
      if (loopDepth_ == 0)
        error(s->loc, "'continue' statement not in loop statement");
      return;
    case StmtKind::Return: {
      const Type *ret = fn_->type->elem;
      if (!s->expr) {
        if (!ret->isVoid() && fn_->name != "main")
          error(s->loc, "non-void function '" + fn_->name + "' should return a value");
        return;
      }
      if (!check(s->expr))
        return;
      if (ret->isVoid()) {
        if (!rvalue(s->expr)->type->isVoid())
          error(s->expr->loc, "void function '" + fn_->name + "' should not return a value");
        return;
      }
      s->expr = convert(s->expr, ret, "returning");
      return;
    }
    case StmtKind::Goto:
      error(s->loc, "goto is not supported");
      return;
    case StmtKind::Label:
      // A label alone is harmless; only goto is rejected.
      stmt(s->then);
      return;
    case StmtKind::Pragma:
      return;
    }
  }

  void checkSwitchLabels(Stmt *s, std::set<int64_t> &seen, bool &hasDefault, const Type *ct) {
    if (!s)
      return;
    if (s->kind == StmtKind::Case) {
      int64_t v;
      if (constantInt(s->caseValue, v)) {
        v = truncate(v, ct);
        if (!seen.insert(v).second)
          error(s->caseValue->loc, "duplicate case value '" + std::to_string(v) + "'");
        s->caseValue->intValue = static_cast<uint64_t>(v);
      }
    } else if (s->kind == StmtKind::Default) {
      if (hasDefault)
        error(s->loc, "multiple default labels in one switch");
      hasDefault = true;
    }
    if (s->kind == StmtKind::Switch)
      return; // nested switch has its own labels
    if (s->kind == StmtKind::Compound)
      for (Stmt *c : s->body)
        checkSwitchLabels(c, seen, hasDefault, ct);
    if (s->kind == StmtKind::Case || s->kind == StmtKind::Default || s->kind == StmtKind::If ||
        s->kind == StmtKind::For || s->kind == StmtKind::While || s->kind == StmtKind::DoWhile) {
      checkSwitchLabels(s->then, seen, hasDefault, ct);
      if (s->kind == StmtKind::If)
        checkSwitchLabels(s->elseStmt, seen, hasDefault, ct);
    }
  }

  void scopedStmt(Stmt *s) {
    if (!s)
      return;
    push();
    stmt(s);
    pop();
  }

  Expr *condition(Expr *e) {
    if (!check(e))
      return e;
    Expr *r = rvalue(e);
    if (!r->type->isScalar()) {
      error(e->loc,
            "value of type '" + r->type->str() + "' is not contextually convertible to 'bool'");
      return r;
    }
    return convert(r, types_.boolTy(), "condition");
  }

  // ---- expressions ----
  Expr *make(ExprKind k, SourceLoc loc) {
    Expr *e = tu_.make<Expr>(k);
    e->loc = loc;
    return e;
  }

  Expr *implicitCast(Expr *e, const Type *to) {
    Expr *c = make(ExprKind::Cast, e->loc);
    c->operands.push_back(e);
    c->type = to;
    return c;
  }

  /// Lvalue-to-rvalue and array/function decay.
  Expr *rvalue(Expr *e) {
    if (!e->type)
      return e;
    if (e->type->isArray()) {
      AddrSpace sp = spaceOfObject(e);
      return implicitCast(
          e, types_.pointerTo(e->type->elem, sp, e->typeSyntax ? e->typeSyntax->isConst : false));
    }
    return e;
  }

  /// Which memory an lvalue lives in (for the pointer its address or decay yields).
  AddrSpace spaceOfObject(Expr *e) {
    switch (e->kind) {
    case ExprKind::Ident:
      if (auto *v = dynamic_cast<VarDecl *>(e->decl)) {
        if (v->quals.shared)
          return AddrSpace::Shared;
        if (v->quals.constant)
          return AddrSpace::Constant;
        if (v->isGlobalScope)
          return v->quals.device ? AddrSpace::Global : AddrSpace::Host;
        return side_ == Side::Host ? AddrSpace::Host : AddrSpace::Local;
      }
      return defaultSpace();
    case ExprKind::Index:
      if (e->operands[0]->type && e->operands[0]->type->isPointer())
        return e->operands[0]->type->space;
      return spaceOfObject(e->operands[0]);
    case ExprKind::Member:
      if (e->isArrow)
        return e->operands[0]->type->space;
      return spaceOfObject(e->operands[0]);
    case ExprKind::Unary:
      if (e->unaryOp == UnaryOp::Deref)
        return e->operands[0]->type->space;
      return defaultSpace();
    case ExprKind::Cast:
      if (e->operands[0]->type && e->operands[0]->type->isArray())
        return spaceOfObject(e->operands[0]);
      return defaultSpace();
    default:
      return defaultSpace();
    }
  }

  const Type *promote(const Type *t) {
    if (t->isInteger() && t->rank() < types_.intTy()->rank())
      return types_.intTy();
    return t;
  }

  /// C's usual arithmetic conversions.
  const Type *common(const Type *a, const Type *b) {
    if (a->kind == TypeKind::Double || b->kind == TypeKind::Double)
      return types_.doubleTy();
    if (a->kind == TypeKind::Float || b->kind == TypeKind::Float)
      return types_.floatTy();
    a = promote(a);
    b = promote(b);
    if (a == b)
      return a;
    if (a->isSigned() == b->isSigned())
      return a->rank() >= b->rank() ? a : b;
    const Type *u = a->isSigned() ? b : a;
    const Type *s = a->isSigned() ? a : b;
    if (u->rank() >= s->rank())
      return u;
    if (s->size() > u->size())
      return s;
    // Signed type cannot represent the unsigned one: its unsigned counterpart.
    switch (s->kind) {
    case TypeKind::Long:
      return types_.get(TypeKind::ULong);
    case TypeKind::LongLong:
      return types_.get(TypeKind::ULongLong);
    default:
      return types_.uintTy();
    }
  }

  static bool isNullConstant(Expr *e) {
    while (e->kind == ExprKind::Cast && !e->typeSyntax)
      e = e->operands[0];
    return (e->kind == ExprKind::IntLit && e->intValue == 0);
  }

  /// Implicit conversion of `e` (checked) to `to` (assignment-like contexts).
  Expr *convert(Expr *e, const Type *to, const char *context) {
    if (!e->type)
      return e;
    e = rvalue(e);
    const Type *from = e->type;
    if (from == to)
      return e;
    if (to->isBool() && (from->isArithmetic() || from->isPointer()))
      return implicitCast(e, to);
    if (to->isArithmetic() && from->isArithmetic())
      return implicitCast(e, to);
    if (to->isPointer()) {
      if (from->isPointer()) {
        bool compatible =
            to->elem == from->elem || to->elem->isVoid() || sameIgnoringSpace(to->elem, from->elem);
        if (!compatible) {
          error(e->loc, std::string("cannot convert '") + from->str() + "' to '" + to->str() +
                            "' when " + context + " (a cast is needed)");
          return e;
        }
        if (from->pointeeConst && !to->pointeeConst) {
          error(e->loc, std::string("cannot convert '") + from->str() + "' to '" + to->str() +
                            "' when " + context + ": it discards 'const'");
          return e;
        }
        return implicitCast(e, to);
      }
      if (from->isInteger() && isNullConstant(e))
        return implicitCast(e, to);
    }
    if (to->isStruct() && from == to)
      return e;
    if (to == types_.dim3Ty() && (from == types_.uint3Ty() || from->isInteger())) {
      // dim3 from an integer: dim3(n, 1, 1); from uint3: member-wise.
      Expr *c = implicitCast(e, to);
      return c;
    }
    if (to == types_.uint3Ty() && from == types_.dim3Ty())
      return implicitCast(e, to);
    if (to->isStruct() && from->isStruct() && to->record == from->record)
      return e;
    error(e->loc, std::string("cannot convert '") + from->str() + "' to '" + to->str() + "' when " +
                      context);
    return e;
  }

  bool check(Expr *e) {
    if (!e)
      return false;
    if (e->type)
      return true; // already checked (shared subtrees such as constant array sizes)
    checkExpr(e);
    return e->type != nullptr;
  }

  void checkExpr(Expr *e) {
    switch (e->kind) {
    case ExprKind::IntLit:
      e->type = intLiteralType(e);
      return;
    case ExprKind::FloatLit:
      e->type = e->isFloatSuffix ? types_.floatTy() : types_.doubleTy();
      return;
    case ExprKind::CharLit:
      e->type = types_.get(TypeKind::Char);
      return;
    case ExprKind::StringLit:
      e->type = types_.arrayOf(types_.get(TypeKind::Char), e->stringValue.size() + 1);
      e->isLValue = true;
      return;
    case ExprKind::Ident:
      ident(e);
      return;
    case ExprKind::Unary:
      unary(e);
      return;
    case ExprKind::Binary:
      binary(e);
      return;
    case ExprKind::Conditional:
      conditional(e);
      return;
    case ExprKind::Call:
      call(e);
      return;
    case ExprKind::Index:
      index(e);
      return;
    case ExprKind::Member:
      member(e);
      return;
    case ExprKind::Cast:
      cast(e);
      return;
    case ExprKind::SizeofType: {
      const Type *t = resolve(e->typeSyntax, defaultSpace());
      if (!t)
        return;
      if (t->isVoid() || t->isFunction() || (t->isStruct() && !t->record->complete)) {
        error(e->loc, "invalid application of 'sizeof' to an incomplete type '" + t->str() + "'");
        return;
      }
      e->intValue = t->size();
      e->type = types_.sizeTy();
      return;
    }
    case ExprKind::SizeofExpr: {
      if (!check(e->operands[0]))
        return;
      e->intValue = e->operands[0]->type->size();
      e->type = types_.sizeTy();
      return;
    }
    case ExprKind::InitList:
      error(e->loc, "initializer list is only allowed in a declaration");
      return;
    }
  }

  const Type *intLiteralType(Expr *e) {
    std::string suffix;
    for (char c : e->text)
      if (c == 'u' || c == 'U' || c == 'l' || c == 'L')
        suffix += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    bool isU = suffix.find('u') != std::string::npos;
    int nl = static_cast<int>(std::count(suffix.begin(), suffix.end(), 'l'));
    bool decimal = !(e->text.size() > 1 && e->text[0] == '0');
    uint64_t v = e->intValue;
    // C's rule: the first type of the list that can represent the value.
    std::vector<TypeKind> candidates;
    if (!isU && nl == 0) {
      candidates = {TypeKind::Int};
      if (!decimal)
        candidates.push_back(TypeKind::UInt);
      candidates.push_back(TypeKind::Long);
      if (!decimal)
        candidates.push_back(TypeKind::ULong);
      candidates.push_back(TypeKind::LongLong);
      candidates.push_back(TypeKind::ULongLong);
    } else if (isU && nl == 0)
      candidates = {TypeKind::UInt, TypeKind::ULong, TypeKind::ULongLong};
    else if (!isU && nl == 1)
      candidates = decimal ? std::vector<TypeKind>{TypeKind::Long, TypeKind::LongLong}
                           : std::vector<TypeKind>{TypeKind::Long, TypeKind::ULong,
                                                   TypeKind::LongLong, TypeKind::ULongLong};
    else if (isU && nl == 1)
      candidates = {TypeKind::ULong, TypeKind::ULongLong};
    else if (!isU)
      candidates = decimal ? std::vector<TypeKind>{TypeKind::LongLong}
                           : std::vector<TypeKind>{TypeKind::LongLong, TypeKind::ULongLong};
    else
      candidates = {TypeKind::ULongLong};
    for (TypeKind k : candidates) {
      const Type *t = types_.get(k);
      uint64_t max = t->size() == 8 ? (t->isSigned() ? INT64_MAX : UINT64_MAX)
                                    : (t->isSigned() ? INT32_MAX : UINT32_MAX);
      if (v <= max)
        return t;
    }
    return types_.get(TypeKind::ULongLong);
  }

  void ident(Expr *e) {
    const std::string &n = e->name;
    if (Decl *d = lookup(n)) {
      e->decl = d;
      if (auto *v = dynamic_cast<VarDecl *>(d)) {
        if (!v->type)
          return; // an earlier error
        if (v->isGlobalScope) {
          bool deviceVar = v->quals.device || v->quals.constant || v->quals.shared;
          if (side_ == Side::Host && deviceVar) {
            error(e->loc, "device variable '" + n +
                              "' cannot be used directly in host code (use cudaMemcpyToSymbol)");
            return;
          }
          if (side_ == Side::Device && !deviceVar && !(v->typeSyntax && v->typeSyntax->isConst)) {
            error(e->loc, "host variable '" + n + "' cannot be used in device code");
            return;
          }
        }
        e->type = v->type;
        e->isLValue = true;
        return;
      }
      if (auto *f = dynamic_cast<FunctionDecl *>(d)) {
        e->type = f->type;
        return;
      }
    }
    if (const Enumerator *en = lookupEnumerator(n)) {
      e->isEnumConst = true;
      e->enumValue = en->value;
      e->type = types_.intTy();
      return;
    }
    static const std::map<std::string, int> objects = {
        {"threadIdx", kBuiltinThreadIdx}, {"blockIdx", kBuiltinBlockIdx},
        {"blockDim", kBuiltinBlockDim},   {"gridDim", kBuiltinGridDim},
        {"warpSize", kBuiltinWarpSize},   {"stdout", kBuiltinStdout},
        {"stderr", kBuiltinStderr}};
    auto it = objects.find(n);
    if (it != objects.end()) {
      e->builtin = it->second;
      if (it->second <= kBuiltinGridDim) {
        if (side_ == Side::Host) {
          error(e->loc, "'" + n + "' is only available in device code");
          return;
        }
        e->type = it->second == kBuiltinThreadIdx || it->second == kBuiltinBlockIdx
                      ? types_.uint3Ty()
                      : types_.dim3Ty();
      } else if (it->second == kBuiltinWarpSize) {
        e->type = types_.intTy();
      } else {
        if (side_ != Side::Host) {
          error(e->loc, "'" + n + "' is only available in host code");
          return;
        }
        e->type = types_.pointerTo(types_.voidTy(), AddrSpace::Host);
      }
      return;
    }
    auto en = builtinEnumerators().find(n);
    if (en != builtinEnumerators().end()) {
      e->isEnumConst = true;
      e->enumValue = en->second;
      e->type = types_.intTy();
      return;
    }
    if (n == "true" || n == "false") {
      e->kind = ExprKind::IntLit;
      e->intValue = n == "true";
      e->text = e->intValue ? "1" : "0";
      e->type = types_.boolTy();
      return;
    }
    if (n == "INFINITY" || n == "NAN" || n == "HUGE_VALF" || n == "HUGE_VAL") {
      e->kind = ExprKind::FloatLit;
      e->floatValue = n == "NAN" ? __builtin_nan("") : __builtin_inf();
      e->isFloatSuffix = n != "HUGE_VAL";
      e->type = e->isFloatSuffix ? types_.floatTy() : types_.doubleTy();
      return;
    }
    if (findBuiltin(n) >= 0) {
      error(e->loc, "built-in function '" + n + "' can only be called");
      return;
    }
    error(e->loc, "use of undeclared identifier '" + n + "'");
  }

  bool isBuiltinObject(Expr *e) {
    return e->kind == ExprKind::Ident && e->builtin >= kBuiltinThreadIdx &&
           e->builtin <= kBuiltinWarpSize;
  }

  /// Is `e` a modifiable lvalue? Reports why not.
  bool modifiable(Expr *e, const char *what) {
    Expr *base = e;
    while (base->kind == ExprKind::Member && !base->isArrow)
      base = base->operands[0];
    if (isBuiltinObject(base)) {
      error(base->loc, "cannot assign to built-in variable '" + base->name + "'");
      return false;
    }
    if (!e->isLValue) {
      error(e->loc, std::string("expression is not assignable") + what);
      return false;
    }
    if (e->type->isArray()) {
      error(e->loc, "array type '" + e->type->str() + "' is not assignable");
      return false;
    }
    if (isConstLValue(e)) {
      error(e->loc, "cannot assign to a const-qualified object");
      return false;
    }
    return true;
  }

  bool isConstLValue(Expr *e) {
    switch (e->kind) {
    case ExprKind::Ident:
      if (auto *v = dynamic_cast<VarDecl *>(e->decl))
        return v->typeSyntax && v->typeSyntax->isConst &&
               (v->typeSyntax->ops.empty() ||
                v->typeSyntax->ops.back().kind == TypeOp::Kind::Array);
      return false;
    case ExprKind::Unary:
      return e->unaryOp == UnaryOp::Deref && e->operands[0]->type->isPointer() &&
             e->operands[0]->type->pointeeConst;
    case ExprKind::Index: {
      const Type *bt = e->operands[0]->type;
      if (bt->isPointer())
        return bt->pointeeConst;
      return false;
    }
    case ExprKind::Member:
      if (e->isArrow)
        return e->operands[0]->type->pointeeConst;
      return isConstLValue(e->operands[0]);
    default:
      return false;
    }
  }

  void unary(Expr *e) {
    Expr *&o = e->operands[0];
    if (!check(o))
      return;
    switch (e->unaryOp) {
    case UnaryOp::Plus:
    case UnaryOp::Minus:
    case UnaryOp::BitNot: {
      Expr *r = rvalue(o);
      if (!r->type->isArithmetic() || (e->unaryOp == UnaryOp::BitNot && !r->type->isInteger())) {
        error(e->loc,
              std::string("invalid argument type '") + r->type->str() + "' to unary expression");
        return;
      }
      const Type *t = promote(r->type);
      o = convert(r, t, "operand");
      e->type = t;
      return;
    }
    case UnaryOp::Not: {
      Expr *r = rvalue(o);
      if (!r->type->isScalar()) {
        error(e->loc, "invalid argument type '" + r->type->str() + "' to unary expression");
        return;
      }
      o = convert(r, types_.boolTy(), "operand");
      e->type = types_.intTy();
      return;
    }
    case UnaryOp::Deref: {
      Expr *r = rvalue(o);
      if (!r->type->isPointer()) {
        error(e->loc, "indirection requires pointer operand ('" + r->type->str() + "' invalid)");
        return;
      }
      if (r->type->elem->isVoid()) {
        error(e->loc, "cannot dereference a 'void *' pointer");
        return;
      }
      o = r;
      e->type = r->type->elem;
      e->isLValue = true;
      return;
    }
    case UnaryOp::AddrOf: {
      if (isBuiltinObject(o) || (o->kind == ExprKind::Member && isBuiltinObject(o->operands[0]))) {
        error(e->loc, "cannot take the address of built-in variable '" +
                          (o->kind == ExprKind::Member ? o->operands[0]->name : o->name) + "'");
        return;
      }
      if (o->type->isFunction()) {
        error(e->loc, "function pointers are not supported");
        return;
      }
      if (!o->isLValue) {
        error(e->loc, "cannot take the address of an rvalue of type '" + o->type->str() + "'");
        return;
      }
      markAddressTaken(o);
      e->type = types_.pointerTo(o->type, spaceOfObject(o), isConstLValue(o));
      return;
    }
    case UnaryOp::PreInc:
    case UnaryOp::PreDec:
    case UnaryOp::PostInc:
    case UnaryOp::PostDec: {
      if (!modifiable(o, ""))
        return;
      if (!o->type->isScalar() || (o->type->isPointer() && o->type->elem->isVoid())) {
        error(e->loc, "cannot increment value of type '" + o->type->str() + "'");
        return;
      }
      e->type = o->type;
      return;
    }
    }
  }

  void markAddressTaken(Expr *o) {
    while (o->kind == ExprKind::Member && !o->isArrow)
      o = o->operands[0];
    while (o->kind == ExprKind::Index && o->operands[0]->type->isArray())
      o = o->operands[0];
    if (o->kind == ExprKind::Ident)
      if (auto *v = dynamic_cast<VarDecl *>(o->decl))
        v->addressTaken = true;
  }

  void binary(Expr *e) {
    Expr *&l = e->operands[0];
    Expr *&r = e->operands[1];
    if (!check(l) | !check(r))
      return;
    BinaryOp op = e->binaryOp;
    if (op == BinaryOp::Comma) {
      r = rvalue(r);
      e->type = r->type;
      return;
    }
    if (isAssignment(op)) {
      if (!modifiable(l, ""))
        return;
      if (op == BinaryOp::Assign) {
        if (l->type->isStruct()) {
          Expr *rv = rvalue(r);
          if (rv->type != l->type && !(l->type == types_.dim3Ty() &&
                                       (rv->type->isInteger() || rv->type == types_.uint3Ty()))) {
            error(e->loc, "assigning to '" + l->type->str() + "' from incompatible type '" +
                              rv->type->str() + "'");
            return;
          }
          r = convert(rv, l->type, "assigning");
          e->type = l->type;
          return;
        }
        r = convert(r, l->type, "assigning");
        e->type = l->type;
        return;
      }
      // Compound assignment: l = l op r, computed in the common type.
      BinaryOp base = compoundBase(op);
      Expr *rv = rvalue(r);
      if (l->type->isPointer() && (base == BinaryOp::Add || base == BinaryOp::Sub)) {
        if (!rv->type->isInteger()) {
          error(e->loc, "invalid operands to pointer arithmetic");
          return;
        }
        r = convert(rv, types_.get(TypeKind::Long), "pointer arithmetic");
        e->type = l->type;
        return;
      }
      if (!l->type->isArithmetic() || !rv->type->isArithmetic()) {
        error(e->loc, "invalid operands to binary expression ('" + l->type->str() + "' and '" +
                          rv->type->str() + "')");
        return;
      }
      bool intOnly = base == BinaryOp::Rem || base == BinaryOp::Shl || base == BinaryOp::Shr ||
                     base == BinaryOp::BitAnd || base == BinaryOp::BitOr ||
                     base == BinaryOp::BitXor;
      if (intOnly && (!l->type->isInteger() || !rv->type->isInteger())) {
        error(e->loc, "invalid operands to binary expression ('" + l->type->str() + "' and '" +
                          rv->type->str() + "')");
        return;
      }
      const Type *ct = (base == BinaryOp::Shl || base == BinaryOp::Shr) ? promote(l->type)
                                                                        : common(l->type, rv->type);
      r = convert(rv, base == BinaryOp::Shl || base == BinaryOp::Shr ? promote(rv->type) : ct,
                  "operand");
      // The computation type is recorded in intValue-free form: lowering recomputes it as
      // common(l, r) from the operand types, so keep r converted to it.
      e->type = l->type;
      return;
    }
    Expr *lv = rvalue(l), *rv = rvalue(r);
    const Type *lt = lv->type, *rt = rv->type;
    switch (op) {
    case BinaryOp::LogAnd:
    case BinaryOp::LogOr:
      if (!lt->isScalar() || !rt->isScalar()) {
        error(e->loc, "invalid operands to binary expression ('" + lt->str() + "' and '" +
                          rt->str() + "')");
        return;
      }
      l = convert(lv, types_.boolTy(), "operand");
      r = convert(rv, types_.boolTy(), "operand");
      e->type = types_.intTy();
      return;
    case BinaryOp::Add:
    case BinaryOp::Sub:
      if (lt->isPointer() && rt->isInteger()) {
        l = lv;
        r = convert(rv, types_.get(TypeKind::Long), "pointer arithmetic");
        e->type = lt;
        return;
      }
      if (op == BinaryOp::Add && lt->isInteger() && rt->isPointer()) {
        // Canonicalise `n + p` to `p + n`.
        std::swap(l, r);
        l = rv;
        r = convert(lv, types_.get(TypeKind::Long), "pointer arithmetic");
        e->type = rt;
        return;
      }
      if (op == BinaryOp::Sub && lt->isPointer() && rt->isPointer()) {
        if (!sameIgnoringSpace(lt->elem, rt->elem)) {
          error(e->loc,
                "'" + lt->str() + "' and '" + rt->str() + "' are not pointers to compatible types");
          return;
        }
        l = lv;
        r = rv;
        e->type = types_.get(TypeKind::Long);
        return;
      }
      [[fallthrough]];
    case BinaryOp::Mul:
    case BinaryOp::Div:
      if (!lt->isArithmetic() || !rt->isArithmetic()) {
        error(e->loc, "invalid operands to binary expression ('" + lt->str() + "' and '" +
                          rt->str() + "')");
        return;
      }
      {
        const Type *ct = common(lt, rt);
        l = convert(lv, ct, "operand");
        r = convert(rv, ct, "operand");
        e->type = ct;
      }
      return;
    case BinaryOp::Rem:
    case BinaryOp::BitAnd:
    case BinaryOp::BitOr:
    case BinaryOp::BitXor:
      if (!lt->isInteger() || !rt->isInteger()) {
        error(e->loc, "invalid operands to binary expression ('" + lt->str() + "' and '" +
                          rt->str() + "')");
        return;
      }
      {
        const Type *ct = common(lt, rt);
        l = convert(lv, ct, "operand");
        r = convert(rv, ct, "operand");
        e->type = ct;
      }
      return;
    case BinaryOp::Shl:
    case BinaryOp::Shr:
      if (!lt->isInteger() || !rt->isInteger()) {
        error(e->loc, "invalid operands to binary expression ('" + lt->str() + "' and '" +
                          rt->str() + "')");
        return;
      }
      l = convert(lv, promote(lt), "operand");
      r = convert(rv, promote(rt), "operand");
      e->type = promote(lt);
      return;
    case BinaryOp::Lt:
    case BinaryOp::Gt:
    case BinaryOp::Le:
    case BinaryOp::Ge:
    case BinaryOp::Eq:
    case BinaryOp::Ne:
      e->type = types_.intTy();
      if (lt->isArithmetic() && rt->isArithmetic()) {
        const Type *ct = common(lt, rt);
        l = convert(lv, ct, "operand");
        r = convert(rv, ct, "operand");
        return;
      }
      if (lt->isPointer() && rt->isPointer()) {
        l = lv;
        r = convert(
            rv,
            lt->elem->isVoid() || rt->elem->isVoid() || sameIgnoringSpace(lt->elem, rt->elem) ? lt
                                                                                              : rt,
            "comparison");
        return;
      }
      if (lt->isPointer() && rt->isInteger() && isNullConstant(rv)) {
        l = lv;
        r = implicitCast(rv, lt);
        return;
      }
      if (rt->isPointer() && lt->isInteger() && isNullConstant(lv)) {
        r = rv;
        l = implicitCast(lv, rt);
        return;
      }
      error(e->loc,
            "invalid operands to binary expression ('" + lt->str() + "' and '" + rt->str() + "')");
      e->type = nullptr;
      return;
    default:
      error(e->loc, "unsupported binary operator");
      return;
    }
  }

  static BinaryOp compoundBase(BinaryOp op) {
    switch (op) {
    case BinaryOp::MulAssign:
      return BinaryOp::Mul;
    case BinaryOp::DivAssign:
      return BinaryOp::Div;
    case BinaryOp::RemAssign:
      return BinaryOp::Rem;
    case BinaryOp::AddAssign:
      return BinaryOp::Add;
    case BinaryOp::SubAssign:
      return BinaryOp::Sub;
    case BinaryOp::ShlAssign:
      return BinaryOp::Shl;
    case BinaryOp::ShrAssign:
      return BinaryOp::Shr;
    case BinaryOp::AndAssign:
      return BinaryOp::BitAnd;
    case BinaryOp::XorAssign:
      return BinaryOp::BitXor;
    case BinaryOp::OrAssign:
      return BinaryOp::BitOr;
    default:
      return op;
    }
  }

  void conditional(Expr *e) {
    for (auto *o : e->operands)
      if (!check(o))
        return;
    e->operands[0] = condition(e->operands[0]);
    Expr *a = rvalue(e->operands[1]), *b = rvalue(e->operands[2]);
    const Type *at = a->type, *bt = b->type;
    if (at->isArithmetic() && bt->isArithmetic()) {
      const Type *ct = common(at, bt);
      e->operands[1] = convert(a, ct, "operand");
      e->operands[2] = convert(b, ct, "operand");
      e->type = ct;
      return;
    }
    if (at == bt) {
      e->operands[1] = a;
      e->operands[2] = b;
      e->type = at;
      return;
    }
    if (at->isPointer() && (bt->isPointer() || isNullConstant(b))) {
      e->operands[1] = a;
      e->operands[2] = convert(b, at, "operand");
      e->type = at;
      return;
    }
    if (bt->isPointer() && isNullConstant(a)) {
      e->operands[1] = convert(a, bt, "operand");
      e->operands[2] = b;
      e->type = bt;
      return;
    }
    error(e->loc, "incompatible operand types ('" + at->str() + "' and '" + bt->str() + "')");
  }

  void index(Expr *e) {
    if (!check(e->operands[0]) | !check(e->operands[1]))
      return;
    Expr *b = rvalue(e->operands[0]), *i = rvalue(e->operands[1]);
    if (b->type->isInteger() && i->type->isPointer())
      std::swap(b, i); // `i[p]` is `p[i]`
    if (!b->type->isPointer()) {
      error(e->loc, "subscripted value is not an array or pointer");
      return;
    }
    if (!i->type->isInteger()) {
      error(e->operands[1]->loc, "array subscript is not an integer");
      return;
    }
    if (b->type->elem->isVoid()) {
      error(e->loc, "subscript of a 'void *' pointer");
      return;
    }
    e->operands[0] = b;
    e->operands[1] = convert(i, types_.get(TypeKind::Long), "subscript");
    e->type = b->type->elem;
    e->isLValue = true;
  }

  void member(Expr *e) {
    if (!check(e->operands[0]))
      return;
    Expr *b = e->operands[0];
    const Type *st = b->type;
    if (e->isArrow) {
      b = rvalue(b);
      e->operands[0] = b;
      if (!b->type->isPointer() || !b->type->elem->isStruct()) {
        error(e->loc,
              "member reference type '" + b->type->str() + "' is not a pointer to a struct");
        return;
      }
      st = b->type->elem;
    } else if (!st->isStruct()) {
      error(e->loc, "member reference base type '" + st->str() + "' is not a struct");
      return;
    }
    if (!st->record->complete) {
      error(e->loc, "incomplete type '" + st->str() + "'");
      return;
    }
    const StructField *f = st->record->field(e->name);
    if (!f) {
      error(e->loc, "no member named '" + e->name + "' in '" + st->str() + "'");
      return;
    }
    e->type = f->type;
    e->isLValue = e->isArrow || b->isLValue;
  }

  void cast(Expr *e) {
    if (!check(e->operands[0]))
      return;
    const Type *to = resolve(e->typeSyntax, defaultSpace());
    if (!to)
      return;
    Expr *o = rvalue(e->operands[0]);
    e->operands[0] = o;
    const Type *from = o->type;
    if (to->isVoid()) {
      e->type = to;
      return;
    }
    bool ok = (to->isArithmetic() && from->isArithmetic()) ||
              (to->isPointer() && (from->isPointer() || from->isInteger())) ||
              (to->isInteger() && from->isPointer() && to->size() == 8) ||
              (to->isBool() && from->isPointer()) || (to == from);
    if (!ok) {
      if (to == types_.dim3Ty() && from->isInteger()) {
        e->type = to;
        return;
      }
      error(e->loc, "cannot cast from '" + from->str() + "' to '" + to->str() + "'");
      return;
    }
    if (to->isPointer() && from->isPointer() && to->space == AddrSpace::Generic &&
        from->space != AddrSpace::Generic && side_ != Side::Host)
      to = types_.pointerTo(to->elem, from->space, to->pointeeConst); // keep what we know
    e->type = to;
  }

  // ---- calls ----
  bool sideAllows(char builtinSide) {
    if (builtinSide == 'B')
      return true;
    if (side_ == Side::Both)
      return false;
    return (builtinSide == 'H') == (side_ == Side::Host);
  }

  const char *sideName() const {
    if (!fn_)
      return "host code";
    if (fn_->quals.global)
      return "a __global__ function";
    if (fn_->quals.device && fn_->quals.host)
      return "a __host__ __device__ function";
    if (fn_->quals.device)
      return "a __device__ function";
    return "host code";
  }

  void call(Expr *e) {
    Expr *callee = e->operands[0];
    if (callee->kind != ExprKind::Ident) {
      error(callee->loc, "called object is not a function (function pointers are not supported)");
      return;
    }
    const std::string &n = callee->name;
    if (e->isLaunch) {
      launch(e);
      return;
    }
    Decl *d = lookup(n);
    if (!d) {
      if (n == "dim3" || n == "uint3") {
        constructDim3(e, n == "dim3" ? types_.dim3Ty() : types_.uint3Ty());
        return;
      }
      if (n.rfind("make_", 0) == 0 && vectorTypes_.count(n.substr(5))) {
        constructVector(e, vectorTypes_[n.substr(5)], n);
        return;
      }
      if (n == "assert") {
        error(e->loc, "assert is not supported yet");
        return;
      }
      int b = findBuiltin(n);
      if (b < 0) {
        error(callee->loc, "use of undeclared identifier '" + n + "'");
        return;
      }
      builtinCall(e, b);
      return;
    }
    auto *f = dynamic_cast<FunctionDecl *>(d);
    if (!f) {
      error(callee->loc, "called object type '" +
                             (d && dynamic_cast<VarDecl *>(d) && static_cast<VarDecl *>(d)->type
                                  ? static_cast<VarDecl *>(d)->type->str()
                                  : std::string("?")) +
                             "' is not a function");
      return;
    }
    callee->decl = f;
    callee->type = f->type;
    e->decl = f;
    if (f->quals.global) {
      error(e->loc, "a kernel ('" + n + "') must be launched with <<<...>>>");
      return;
    }
    bool hostOk = f->isHostCallable(), devOk = f->isDeviceCallable();
    if (side_ == Side::Host && !hostOk) {
      error(e->loc, "calling a __device__ function ('" + n + "') from host code is not allowed");
      return;
    }
    if (side_ == Side::Device && !devOk) {
      error(e->loc,
            "calling a __host__ function ('" + n + "') from " + sideName() + " is not allowed");
      return;
    }
    if (side_ == Side::Both && !(hostOk && devOk)) {
      error(e->loc, std::string("calling a ") + (hostOk ? "__host__" : "__device__") +
                        " function ('" + n +
                        "') from a __host__ __device__ function is not allowed");
      return;
    }
    if (!arguments(e, f->type, n))
      return;
    e->type = f->type->elem;
  }

  bool arguments(Expr *e, const Type *ft, const std::string &n) {
    if (e->args.size() != ft->params.size() &&
        !(ft->variadic && e->args.size() > ft->params.size())) {
      error(e->loc, std::string(e->args.size() < ft->params.size() ? "too few" : "too many") +
                        " arguments to function call '" + n + "', expected " +
                        std::to_string(ft->params.size()) + ", have " +
                        std::to_string(e->args.size()));
      return false;
    }
    bool ok = true;
    for (size_t i = 0; i < e->args.size(); ++i) {
      if (e->args[i]->builtin == -3 || e->args[i]->builtin == -4)
        continue; // a symbol or kernel named as an argument: resolved by builtinCall
      if (!check(e->args[i])) {
        ok = false;
        continue;
      }
      if (i < ft->params.size()) {
        const Type *pt = ft->params[i];
        Expr *a = rvalue(e->args[i]);
        if (pt->isStruct()) {
          if (a->type != pt && !(pt == types_.dim3Ty() && a->type->isInteger())) {
            error(a->loc, "cannot pass '" + a->type->str() + "' as '" + pt->str() + "'");
            ok = false;
            continue;
          }
        }
        unsigned before = diags_.errorCount();
        e->args[i] = convert(a, pt, "passing an argument");
        if (diags_.errorCount() != before)
          ok = false;
      } else {
        e->args[i] = variadicArg(e->args[i]);
      }
    }
    return ok;
  }

  /// C's default argument promotions for `...`.
  Expr *variadicArg(Expr *a) {
    a = rvalue(a);
    const Type *t = a->type;
    if (t->kind == TypeKind::Float)
      return implicitCast(a, types_.doubleTy());
    if (t->isInteger() && t->rank() < types_.intTy()->rank())
      return implicitCast(a, types_.intTy());
    if (t->isStruct()) {
      error(a->loc, "cannot pass a struct through '...'");
      return a;
    }
    return a;
  }

  void constructDim3(Expr *e, const Type *t) {
    if (e->args.size() > 3) {
      error(e->loc, "too many arguments to '" + t->str() + "' (at most 3)");
      return;
    }
    for (auto &a : e->args) {
      if (!check(a))
        return;
      Expr *r = rvalue(a);
      if (!r->type->isArithmetic()) {
        error(a->loc, "'" + t->str() + "' components must be integers");
        return;
      }
      a = convert(r, types_.uintTy(), "constructing");
    }
    e->type = t;
    e->builtin = -2; // a constructor
  }

  /// make_float4(x, y, z, w) and friends: one argument per component.
  void constructVector(Expr *e, const Type *t, const std::string &n) {
    auto &fields = t->record->fields;
    if (e->args.size() != fields.size()) {
      error(e->loc, std::string(e->args.size() < fields.size() ? "too few" : "too many") +
                        " arguments to function call '" + n + "', expected " +
                        std::to_string(fields.size()) + ", have " +
                        std::to_string(e->args.size()));
      return;
    }
    for (size_t i = 0; i < fields.size(); ++i) {
      if (!check(e->args[i]))
        return;
      Expr *r = rvalue(e->args[i]);
      if (!r->type->isArithmetic()) {
        error(r->loc, "'" + n + "' takes numbers, not '" + r->type->str() + "'");
        return;
      }
      e->args[i] = convert(r, fields[i].type, "constructing");
    }
    e->type = t;
    e->builtin = -2; // a constructor
  }

  const Type *sigType(char c) {
    switch (c) {
    case 'v':
      return types_.voidTy();
    case 'b':
      return types_.boolTy();
    case 'c':
      return types_.get(TypeKind::Char);
    case 'i':
      return types_.intTy();
    case 'j':
      return types_.uintTy();
    case 'l':
      return types_.get(TypeKind::Long);
    case 'm':
      return types_.get(TypeKind::ULong);
    case 'x':
      return types_.get(TypeKind::LongLong);
    case 'y':
      return types_.get(TypeKind::ULongLong);
    case 'f':
      return types_.floatTy();
    case 'd':
      return types_.doubleTy();
    case 's':
      return types_.pointerTo(types_.get(TypeKind::Char), defaultSpace(), true);
    case 'S':
      return types_.pointerTo(types_.get(TypeKind::Char), defaultSpace());
    case 'p':
      return types_.pointerTo(types_.voidTy(), defaultSpace());
    case 'q':
      return types_.pointerTo(types_.voidTy(), defaultSpace(), true);
    case 'P':
      return types_.pointerTo(types_.pointerTo(types_.voidTy(), AddrSpace::Host), AddrSpace::Host);
    case 'I':
      return types_.pointerTo(types_.intTy(), defaultSpace());
    case 'F':
      return types_.pointerTo(types_.floatTy(), defaultSpace());
    case 'Z':
      return types_.pointerTo(types_.sizeTy(), defaultSpace());
    case 'D':
      return types_.pointerTo(deviceProp_, defaultSpace());
    case 'A':
      return types_.pointerTo(funcAttributes_, defaultSpace());
    case 'Y': // a symbol: passed as its device address
    case 'K': // a kernel: passed as its index
      return types_.pointerTo(types_.voidTy(), AddrSpace::Host);
    case 'E':
      return types_.pointerTo(types_.pointerTo(types_.get(TypeKind::Char), defaultSpace()),
                              defaultSpace());
    }
    return types_.intTy();
  }

  void builtinCall(Expr *e, int b) {
    const BuiltinInfo &info = builtinInfo(b);
    const std::string n = info.name;
    e->builtin = b;
    e->operands[0]->builtin = b;
    if (!sideAllows(info.side)) {
      if (info.side == 'H')
        error(e->loc,
              "calling a __host__ function ('" + n + "') from " + sideName() + " is not allowed");
      else
        error(e->loc,
              "calling a __device__ function ('" + n + "') from " + sideName() + " is not allowed");
      return;
    }
    std::string sig = info.signature;
    if (sig.find('g') != std::string::npos) {
      genericBuiltin(e, n, sig);
      return;
    }
    // Trailing arguments that CUDA's headers give defaults.
    static const std::map<std::string, std::vector<std::pair<size_t, int64_t>>> defaults = {
        {"__syncwarp", {{0, 0xffffffffLL}}},
        {"cudaMemcpyAsync", {{4, 0}}},
        {"cudaMemsetAsync", {{3, 0}}},
        {"cudaEventRecord", {{1, 0}}},
        {"cudaMemcpyToSymbol", {{3, 0}, {4, 1}}},   // offset 0, cudaMemcpyHostToDevice
        {"cudaMemcpyFromSymbol", {{3, 0}, {4, 2}}}, // offset 0, cudaMemcpyDeviceToHost
    };
    if (auto d = defaults.find(n); d != defaults.end())
      for (auto [index, value] : d->second)
        if (e->args.size() == index) {
          Expr *lit = make(ExprKind::IntLit, e->loc);
          lit->intValue = static_cast<uint64_t>(value);
          lit->text = std::to_string(value);
          e->args.push_back(lit);
        }
    // cudaMalloc(void**, size_t) and friends accept any T** (C++ templates make that
    // implicit in CUDA).
    if ((n == "cudaMalloc" || n == "cudaMallocHost" || n == "cudaHostAlloc" ||
         n == "cudaGetSymbolAddress") &&
        !e->args.empty() && check(e->args[0])) {
      Expr *a = rvalue(e->args[0]);
      if (a->type->isPointer() && a->type->elem->isPointer()) {
        e->args[0] = implicitCast(a, sigType('P'));
      } else {
        error(a->loc, n + " needs the address of a pointer, not '" + a->type->str() + "'");
        return;
      }
    }
    // Symbols (__device__/__constant__ variables named by the host) and kernels named as
    // arguments: resolved here, where host code may name them.
    for (size_t i = 1; i < sig.size() && i - 1 < e->args.size(); ++i) {
      char c = sig[i];
      if (c != 'Y' && c != 'K')
        continue;
      Expr *a = e->args[i - 1];
      while (a->kind == ExprKind::Unary && a->unaryOp == UnaryOp::AddrOf && c == 'Y')
        a = a->operands[0]; // `&symbol` is accepted too
      Decl *d = a->kind == ExprKind::Ident ? lookup(a->name) : nullptr;
      if (c == 'Y') {
        auto *v = dynamic_cast<VarDecl *>(d);
        if (!v || !v->isGlobalScope || !(v->quals.device || v->quals.constant) || !v->type) {
          error(a->loc, "the symbol argument of '" + n +
                            "' must be a __device__ or __constant__ variable");
          return;
        }
        a->decl = v;
        a->type = v->type;
        a->isLValue = true;
        a->builtin = -3; // a symbol reference (see the lowering)
      } else {
        auto *f = dynamic_cast<FunctionDecl *>(d);
        if (!f || !f->quals.global) {
          error(a->loc, "the kernel argument of '" + n + "' must be a __global__ function");
          return;
        }
        a->decl = f;
        a->type = f->type;
        a->builtin = -4; // a kernel reference (see the lowering)
      }
      e->args[i - 1] = a;
    }
    if ((n == "fprintf") && e->args.size() >= 1 && check(e->args[0])) {
      Expr *a = e->args[0];
      if (!(a->kind == ExprKind::Ident &&
            (a->builtin == kBuiltinStdout || a->builtin == kBuiltinStderr))) {
        error(a->loc, "fprintf can only write to stdout or stderr (no file access)");
        return;
      }
    }
    bool variadic = sig.back() == '.';
    if (variadic)
      sig.pop_back();
    std::vector<const Type *> params;
    for (size_t i = 1; i < sig.size(); ++i)
      params.push_back(sigType(sig[i]));
    const Type *ft = types_.function(sigType(sig[0]), params, variadic);
    if (!arguments(e, ft, n))
      return;
    if (n == "printf" || n == "fprintf" || n == "sprintf" || n == "snprintf") {
      size_t fi = n == "printf" ? 0 : n == "fprintf" ? 1 : n == "sprintf" ? 1 : 2;
      Expr *f = e->args[fi];
      while (f->kind == ExprKind::Cast && !f->typeSyntax)
        f = f->operands[0];
      if (f->kind != ExprKind::StringLit) {
        error(e->args[fi]->loc, "the format of '" + n + "' must be a string literal");
        return;
      }
      for (size_t i = fi + 1; i < e->args.size(); ++i) {
        const Type *t = e->args[i]->type;
        if (t->isStruct()) {
          error(e->args[i]->loc, "cannot print a struct");
          return;
        }
      }
    }
    e->type = ft->elem;
  }

  void genericBuiltin(Expr *e, const std::string &n, const std::string &sig) {
    size_t nparams = sig.size() - 1;
    // The shuffles' last argument, width, defaults to warpSize.
    bool optionalLast = n.rfind("__shfl", 0) == 0;
    if (e->args.size() != nparams && !(optionalLast && e->args.size() + 1 == nparams)) {
      error(e->loc, std::string(e->args.size() < nparams ? "too few" : "too many") +
                        " arguments to function call '" + n + "', expected " +
                        std::to_string(nparams) + ", have " + std::to_string(e->args.size()));
      return;
    }
    for (auto *a : e->args)
      if (!check(a))
        return;
    if (n == "min" || n == "max") {
      Expr *a = rvalue(e->args[0]), *b = rvalue(e->args[1]);
      if (!a->type->isArithmetic() || !b->type->isArithmetic()) {
        error(e->loc, "no matching function for call to '" + n + "'");
        return;
      }
      const Type *ct = common(a->type, b->type);
      e->args[0] = convert(a, ct, "argument");
      e->args[1] = convert(b, ct, "argument");
      e->type = ct;
      return;
    }
    if (n == "isnan" || n == "isinf" || n == "isfinite" || n == "signbit") {
      Expr *a = rvalue(e->args[0]);
      if (!a->type->isArithmetic()) {
        error(e->loc, "no matching function for call to '" + n + "'");
        return;
      }
      e->args[0] = convert(a, a->type->isFloating() ? a->type : types_.doubleTy(), "argument");
      e->type = types_.intTy();
      return;
    }
    if (n == "abs") {
      Expr *a = rvalue(e->args[0]);
      if (!a->type->isArithmetic()) {
        error(e->loc, "no matching function for call to 'abs'");
        return;
      }
      const Type *t = promote(a->type);
      e->args[0] = convert(a, t, "argument");
      e->type = t;
      return;
    }
    if (n.rfind("__shfl", 0) == 0) {
      Expr *v = rvalue(e->args[1]);
      if (!v->type->isArithmetic()) {
        error(v->loc, "no matching function for call to '" + n + "' with '" + v->type->str() + "'");
        return;
      }
      const Type *t = promote(v->type);
      e->args[0] = convert(rvalue(e->args[0]), types_.uintTy(), "argument");
      e->args[1] = convert(v, t, "argument");
      e->args[2] = convert(rvalue(e->args[2]), sigType(sig[3]), "argument");
      if (e->args.size() > 3)
        e->args[3] = convert(rvalue(e->args[3]), types_.intTy(), "argument");
      e->type = t;
      return;
    }
    // Atomics: the first argument is a pointer; its pointee type selects the form.
    Expr *p = rvalue(e->args[0]);
    if (!p->type->isPointer()) {
      error(p->loc, "the first argument of '" + n + "' must be a pointer");
      return;
    }
    const Type *t = p->type->elem;
    static const std::set<std::string> intOnly = {"atomicSub", "atomicMin", "atomicMax",
                                                  "atomicInc", "atomicDec", "atomicAnd",
                                                  "atomicOr",  "atomicXor", "atomicCAS"};
    bool okType = t->kind == TypeKind::Int || t->kind == TypeKind::UInt ||
                  t->kind == TypeKind::ULongLong || t->kind == TypeKind::LongLong ||
                  t->kind == TypeKind::ULong || t->kind == TypeKind::Long ||
                  (!intOnly.count(n) && t->isFloating());
    if ((n == "atomicInc" || n == "atomicDec") && t->kind != TypeKind::UInt)
      okType = false;
    if (!okType) {
      error(e->loc, "no matching function for call to '" + n + "' with '" + p->type->str() + "'");
      return;
    }
    if (p->type->pointeeConst) {
      error(p->loc, "'" + n + "' cannot modify a const object");
      return;
    }
    e->args[0] = p;
    for (size_t i = 1; i < e->args.size(); ++i)
      e->args[i] = convert(rvalue(e->args[i]), t, "argument");
    e->type = t;
  }

  void launch(Expr *e) {
    Expr *callee = e->operands[0];
    if (side_ != Side::Host) {
      error(e->loc, "kernel launches from device code (dynamic parallelism) are not supported");
      return;
    }
    Decl *d = lookup(callee->name);
    auto *f = dynamic_cast<FunctionDecl *>(d);
    if (!f) {
      if (!d)
        error(callee->loc, "use of undeclared identifier '" + callee->name + "'");
      else
        error(callee->loc, "'" + callee->name + "' is not a function");
      return;
    }
    if (!f->quals.global) {
      error(callee->loc,
            "'" + callee->name + "' is not a __global__ function and cannot be launched");
      return;
    }
    callee->decl = f;
    callee->type = f->type;
    e->decl = f;
    auto &cfg = e->launchConfig;
    if (cfg.size() < 2 || cfg.size() > 4) {
      error(e->loc,
            "a launch takes 2 to 4 configuration arguments <<<grid, block[, shared[, stream]]>>>");
      return;
    }
    for (size_t i = 0; i < cfg.size(); ++i) {
      if (!check(cfg[i]))
        return;
      Expr *c = rvalue(cfg[i]);
      if (i < 2) {
        if (c->type == types_.dim3Ty() || c->type == types_.uint3Ty())
          cfg[i] = c;
        else if (c->type->isInteger())
          cfg[i] = convert(c, types_.uintTy(), "launch configuration");
        else {
          error(c->loc,
                "launch configuration must be an integer or dim3, not '" + c->type->str() + "'");
          return;
        }
      } else if (i == 2) {
        if (!c->type->isInteger()) {
          error(c->loc, "dynamic shared memory size must be an integer");
          return;
        }
        cfg[i] = convert(c, types_.sizeTy(), "launch configuration");
      } else {
        if (!(c->type->isPointer() || isNullConstant(c))) {
          error(c->loc, "stream must be a cudaStream_t");
          return;
        }
        cfg[i] = convert(c, types_.pointerTo(types_.voidTy(), AddrSpace::Host), "stream");
      }
    }
    if (!arguments(e, f->type, callee->name))
      return;
    e->type = types_.voidTy();
  }
};

} // namespace

bool analyze(TranslationUnit &tu, TypeContext &types, DiagnosticEngine &diags) {
  Sema s(tu, types, diags);
  return s.run();
}

} // namespace kern::frontend
