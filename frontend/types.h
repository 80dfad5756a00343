// The C/CUDA type system of .kern programs: interned types with CUDA sizes and alignments.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kern::frontend {

enum class TypeKind {
  Void,
  Bool,
  Char, // plain char is signed, as on x86-64 Linux hosts and in nvcc
  SChar,
  UChar,
  Short,
  UShort,
  Int,
  UInt,
  Long, // LP64: long is 64-bit on the host, and nvcc matches the host
  ULong,
  LongLong,
  ULongLong,
  Float,
  Double,
  Pointer,
  Array,
  Struct,
  Function,
};

/// Which memory a pointer points into. Generic means "cannot know statically": the
/// backend then decides per access from the address.
enum class AddrSpace : uint8_t { Generic, Global, Shared, Constant, Local, Host };
const char *addrSpaceName(AddrSpace s);

struct Type;
struct Expr;

struct StructField {
  std::string name;
  const Type *type = nullptr;
  uint64_t offset = 0;
  /// A C++ base class's subobject (a base that is not empty), named `<base B>`: copied,
  /// initialised and destroyed as a member is, never found by a member name.
  bool isBase = false;
  /// An anonymous struct or union member, named `<anonymous N>`: its own members are found
  /// as members of the enclosing struct (Sema::anonymousMember).
  bool isAnonymous = false;
  /// The vtable pointer of a dynamic class (one with virtual functions), named `<vptr>`, at
  /// offset 0 as the Itanium C++ ABI places it: the number of the class the object is.
  bool isVptr = false;
};

/// A C++ base class of a struct, in the order of the base clause.
struct StructBase {
  const Type *type = nullptr;
  uint64_t offset = 0; // of its subobject in the derived struct (layoutStruct)
  /// Its subobject's field in StructInfo::fields, or -1 for an empty base, which has no
  /// storage of its own (the empty base optimisation).
  int field = -1;
};

struct StructInfo {
  std::string name; // may be empty for an anonymous struct
  std::vector<StructField> fields;
  std::vector<StructBase> bases; // C++ base classes (non-virtual)
  bool complete = false;
  /// A union: every field at offset 0, the size of the largest rounded up to the alignment.
  bool isUnion = false;
  /// `#pragma pack(n)` where the struct was defined: fields aligned to at most n (0: none).
  uint64_t pack = 0;
  /// The pack placed some member below its natural alignment (layoutStruct).
  bool packed = false;
  uint64_t size = 0;
  uint64_t align = 1;
  /// The Itanium C++ ABI's data size: the size without tail padding, where a struct derived
  /// from this one may place its own members when this one is not a POD.
  uint64_t dataSize = 0;
  /// A POD for the purpose of layout (C++03's POD: no constructors, destructor, copy
  /// assignment, base classes or non-public fields, and POD members only): its tail padding is
  /// kept when it is a base. Set by sema.
  bool podForLayout = true;
  /// Has virtual functions (its own or a base's): its objects hold a vtable pointer.
  bool dynamic = false;
  /// No data: no fields, only empty bases (a C++ empty class, whose size is 1).
  bool isEmpty() const { return fields.empty(); }
  const StructField *field(const std::string &n) const {
    for (auto &f : fields)
      if (f.name == n)
        return &f;
    return nullptr;
  }
};

/// A type. Types are interned by TypeContext, so pointer equality is type equality.
struct Type {
  TypeKind kind = TypeKind::Void;
  const Type *elem = nullptr; // pointee (Pointer), element (Array), result (Function)
  uint64_t count = 0;         // Array: element count (0 = unsized, e.g. extern __shared__)
  /// Array: the bound of a variable-length array (host code, `float a[2 * n]`), evaluated each
  /// time its declaration (or cast, or sizeof) runs; `count` is then 0. Such types are not
  /// interned: each declaration has its own, which the lowering ties to its evaluated bound.
  Expr *vlaBound = nullptr;
  AddrSpace space = AddrSpace::Generic; // Pointer only
  bool pointeeConst = false;            // Pointer only: `const T*`
  /// Pointer only: a C++ reference `T &`, which the front end turns into a pointer that is
  /// dereferenced wherever the reference is named (the IR sees only pointers).
  bool isReference = false;
  StructInfo *record = nullptr;     // Struct only
  std::vector<const Type *> params; // Function only
  bool variadic = false;            // Function only
  bool unprototyped = false;        // Function only: C's `int (*)()`, parameters not stated

  bool isVoid() const { return kind == TypeKind::Void; }
  bool isBool() const { return kind == TypeKind::Bool; }
  bool isInteger() const { return kind >= TypeKind::Bool && kind <= TypeKind::ULongLong; }
  bool isFloating() const { return kind == TypeKind::Float || kind == TypeKind::Double; }
  bool isArithmetic() const { return isInteger() || isFloating(); }
  bool isPointer() const { return kind == TypeKind::Pointer; }
  bool isArray() const { return kind == TypeKind::Array; }
  bool isStruct() const { return kind == TypeKind::Struct; }
  bool isFunction() const { return kind == TypeKind::Function; }
  bool isScalar() const { return isArithmetic() || isPointer(); }
  bool isVla() const { return isArray() && vlaBound; }
  /// An array whose size is known only at run time: a VLA, or an array of them.
  bool hasRuntimeSize() const { return isArray() && (vlaBound || elem->hasRuntimeSize()); }
  /// C's "variably modified": a VLA somewhere in the type, through arrays and pointers.
  bool isVariablyModified() const {
    return (isArray() || isPointer()) && (vlaBound || elem->isVariablyModified());
  }
  bool isSigned() const;
  /// Size in bytes (CUDA = x86-64 LP64 sizes); 0 for void, functions and hasRuntimeSize().
  uint64_t size() const;
  uint64_t align() const;
  /// Integer rank for C's usual arithmetic conversions.
  int rank() const;
  /// C spelling, e.g. "const float *", "int[16]", "struct vec3".
  std::string str() const;
};

/// Owns and interns all types of one compilation.
class TypeContext {
public:
  TypeContext();
  const Type *get(TypeKind k) const { return basic_[static_cast<int>(k)]; }
  const Type *voidTy() const { return get(TypeKind::Void); }
  const Type *boolTy() const { return get(TypeKind::Bool); }
  const Type *intTy() const { return get(TypeKind::Int); }
  const Type *uintTy() const { return get(TypeKind::UInt); }
  const Type *floatTy() const { return get(TypeKind::Float); }
  const Type *doubleTy() const { return get(TypeKind::Double); }
  const Type *sizeTy() const { return get(TypeKind::ULong); } // size_t
  const Type *pointerTo(const Type *elem, AddrSpace space = AddrSpace::Generic,
                        bool pointeeConst = false);
  /// `T &` (`const T &` with isConst): see Type::isReference.
  const Type *referenceTo(const Type *elem, AddrSpace space, bool isConst);
  const Type *arrayOf(const Type *elem, uint64_t count);
  /// A new variable-length array type of `elem` with run-time bound `bound` (not interned).
  const Type *vlaOf(const Type *elem, Expr *bound);
  const Type *function(const Type *ret, std::vector<const Type *> params, bool variadic,
                       bool unprototyped = false);
  /// A new struct type (complete it by filling record->fields and calling layoutStruct).
  const Type *newStruct(const std::string &name);
  /// Computes field offsets, size and alignment; `alignOverride` from __align__(n) (0 = none).
  /// C++ (`cxx`) lays out base classes first as the Itanium ABI does (an empty base takes no
  /// room, a non-POD base's tail padding holds the next members) and gives an empty struct
  /// the size 1; C gives it 0.
  void layoutStruct(const Type *t, uint64_t alignOverride = 0, bool cxx = false);
  /// The built-in uint3 / dim3 struct types (three unsigned fields x, y, z).
  const Type *uint3Ty() const { return uint3_; }
  const Type *dim3Ty() const { return dim3_; }

private:
  std::vector<const Type *> basic_;
  std::vector<std::unique_ptr<Type>> owned_;
  std::vector<std::unique_ptr<StructInfo>> records_;
  std::map<std::tuple<const Type *, int, bool>, const Type *> pointers_;
  std::map<std::tuple<const Type *, int, bool>, const Type *> references_;
  std::map<std::pair<const Type *, uint64_t>, const Type *> arrays_;
  std::vector<const Type *> functions_;
  const Type *uint3_ = nullptr;
  const Type *dim3_ = nullptr;
  Type *make();
};

} // namespace kern::frontend
