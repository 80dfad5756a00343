// The types a program sees without declaring them: CUDA's vector types, the runtime API's
// structs (cudaDeviceProp...) and the C library's (struct timeval, FILE), laid out as the
// runtime and the host's C library lay them out.
#include "frontend/sema_impl.h"

namespace kern::frontend::sema_detail {

void Sema::declareVectorTypes() {
  struct Base {
    const char *name;
    TypeKind kind;
  };
  static const Base bases[] = {{"char", TypeKind::SChar},        {"uchar", TypeKind::UChar},
                               {"short", TypeKind::Short},       {"ushort", TypeKind::UShort},
                               {"int", TypeKind::Int},           {"uint", TypeKind::UInt},
                               {"long", TypeKind::Long},         {"ulong", TypeKind::ULong},
                               {"longlong", TypeKind::LongLong}, {"ulonglong", TypeKind::ULongLong},
                               {"float", TypeKind::Float},       {"double", TypeKind::Double}};
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

const Type *Sema::makeStruct(const std::string &name,
                             const std::vector<std::pair<std::string, const Type *>> &fields) {
  const Type *t = types_.newStruct(name);
  for (auto &[n, ft] : fields)
    t->record->fields.push_back({n, ft, 0});
  types_.layoutStruct(t);
  fileScope_.typedefs[name] = t;
  fileScope_.structs[name] = t;
  return t;
}

void Sema::declareApiStructs() {
  const Type *i = types_.intTy(), *z = types_.sizeTy();
  const Type *i3 = types_.arrayOf(i, 3);
  deviceProp_ =
      makeStruct("cudaDeviceProp", {{"name", types_.arrayOf(types_.get(TypeKind::Char), 256)},
                                    {"totalGlobalMem", z},
                                    {"sharedMemPerBlock", z},
                                    {"regsPerBlock", i},
                                    {"warpSize", i},
                                    {"memPitch", z},
                                    {"maxThreadsPerBlock", i},
                                    {"maxThreadsDim", i3},
                                    {"maxGridSize", i3},
                                    {"clockRate", i},
                                    {"totalConstMem", z},
                                    {"major", i},
                                    {"minor", i},
                                    {"textureAlignment", z},
                                    {"deviceOverlap", i},
                                    {"multiProcessorCount", i},
                                    {"kernelExecTimeoutEnabled", i},
                                    {"integrated", i},
                                    {"canMapHostMemory", i},
                                    {"computeMode", i},
                                    {"concurrentKernels", i},
                                    {"ECCEnabled", i},
                                    {"pciBusID", i},
                                    {"pciDeviceID", i},
                                    {"pciDomainID", i},
                                    {"asyncEngineCount", i},
                                    {"unifiedAddressing", i},
                                    {"memoryClockRate", i},
                                    {"memoryBusWidth", i},
                                    {"l2CacheSize", i},
                                    {"maxThreadsPerMultiProcessor", i},
                                    {"sharedMemPerMultiprocessor", z},
                                    {"regsPerMultiprocessor", i},
                                    {"sharedMemPerBlockOptin", z},
                                    {"maxBlocksPerMultiProcessor", i},
                                    {"managedMemory", i},
                                    {"isMultiGpuBoard", i},
                                    {"persistingL2CacheMaxSize", i},
                                    {"accessPolicyMaxWindowSize", i},
                                    {"pageableMemoryAccess", i},
                                    {"concurrentManagedAccess", i}});
  funcAttributes_ = makeStruct("cudaFuncAttributes", {{"sharedSizeBytes", z},
                                                      {"constSizeBytes", z},
                                                      {"localSizeBytes", z},
                                                      {"maxThreadsPerBlock", i},
                                                      {"numRegs", i},
                                                      {"ptxVersion", i},
                                                      {"binaryVersion", i},
                                                      {"cacheModeCA", i},
                                                      {"maxDynamicSharedSizeBytes", i},
                                                      {"preferredShmemCarveout", i}});
  memLocation_ = makeStruct("cudaMemLocation", {{"type", i}, {"id", i}});
  const Type *voidPtr = types_.pointerTo(types_.voidTy(), AddrSpace::Host);
  pointerAttrs_ = makeStruct("cudaPointerAttributes",
                             {{"type", i},
                              {"device", i},
                              {"devicePointer", voidPtr},
                              {"hostPointer", voidPtr},
                              {"reserved", types_.arrayOf(types_.get(TypeKind::Long), 8)}});
  // The L2 access policy of a stream. CUDA's cudaStreamAttrValue is a union (of
  // cudaLaunchAttributeValue); kern's is a struct of the members a stream takes.
  const Type *window = makeStruct("cudaAccessPolicyWindow", {{"base_ptr", voidPtr},
                                                             {"num_bytes", z},
                                                             {"hitRatio", types_.floatTy()},
                                                             {"hitProp", i},
                                                             {"missProp", i}});
  streamAttrValue_ = makeStruct(
      "cudaStreamAttrValue", {{"accessPolicyWindow", window}, {"syncPolicy", i}, {"priority", i}});
  fileScope_.typedefs["cudaLaunchAttributeValue"] = streamAttrValue_;
  // cudaMemPoolCreate's properties, with CUDA 13's layout (88 bytes).
  memPoolProps_ = makeStruct("cudaMemPoolProps",
                             {{"allocType", i},
                              {"handleTypes", i},
                              {"location", memLocation_},
                              {"win32SecurityAttributes", voidPtr},
                              {"maxSize", z},
                              {"usage", types_.get(TypeKind::UShort)},
                              {"reserved", types_.arrayOf(types_.get(TypeKind::UChar), 54)}});
  memAccessDesc_ = makeStruct("cudaMemAccessDesc", {{"location", memLocation_}, {"flags", i}});
}

void Sema::declareHostLibraryTypes() {
  const Type *l = types_.get(TypeKind::Long), *i = types_.intTy();
  timeval_ = makeStruct("timeval", {{"tv_sec", l}, {"tv_usec", l}});
  timespec_ = makeStruct("timespec", {{"tv_sec", l}, {"tv_nsec", l}});
  option_ = makeStruct(
      "option", {{"name", types_.pointerTo(types_.get(TypeKind::Char), AddrSpace::Generic, true)},
                 {"has_arg", i},
                 {"flag", types_.pointerTo(i)},
                 {"val", i}});
  // `option` is only a struct tag (struct option), as in C: programs often name variables so.
  fileScope_.typedefs.erase("option");
  file_ = types_.newStruct("FILE");
  fileScope_.typedefs["FILE"] = file_;
}

} // namespace kern::frontend::sema_detail
