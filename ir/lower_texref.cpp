// Texture references: `texture<float> tex;` at file scope is a host object (the fields the host
// sets before binding) and, for kernels, a device object of the same type whose descriptor
// (`__kern_desc`, kern_texture.h) cudaBindTexture writes. Kernels name the device twin, whose
// address is a constant: reading a reference costs no load of a handle, only the descriptor
// and texel loads a texture object's fetch makes.
#include "ir/lower_impl.h"

namespace kern::ir::lower_detail {

GlobalVar *Lowerer::textureReferenceTwin(GlobalVar *host, const fe::Type *t) {
  GlobalVar *twin = m_.make<GlobalVar>();
  twin->id = m_.nextGlobalId();
  twin->name = host->name + " (device)";
  twin->space = AddrSpace::Global;
  twin->size = host->size;
  twin->align = std::max<uint64_t>(host->align, 16);
  m_.globals.push_back(twin); // zeros: an unbound reference, whose fetches read zeros
  // The host object: the address modes CUDA's texture constructor gives (clamp), and where
  // its descriptor lives on the device.
  host->init.assign(host->size, 0);
  uint64_t modes = 0, device = 0, desc = 0;
  if (fe::textureReferenceField(t, "addressMode", modes))
    for (int i = 0; i < 3; ++i) {
      const uint32_t clamp = 1; // cudaAddressModeClamp
      std::memcpy(host->init.data() + modes + 4 * i, &clamp, sizeof clamp);
    }
  // The read mode, for the bindings that take a `const textureReference *`.
  uint64_t readMode = 0;
  const fe::StructField *mode = t->isStruct() ? t->record->field("__kern_mode") : nullptr;
  if (mode && mode->type->isArray() && mode->type->count > 0 &&
      fe::textureReferenceField(t, "__kern_readMode", readMode)) {
    const int32_t m = static_cast<int32_t>(mode->type->count - 1);
    std::memcpy(host->init.data() + readMode, &m, sizeof m);
  }
  if (fe::textureReferenceField(t, "__kern_device", device) &&
      fe::textureReferenceField(t, "__kern_desc", desc)) {
    GlobalReloc r;
    r.offset = device;
    r.target = twin->id;
    r.addend = static_cast<int64_t>(desc);
    host->relocs.push_back(r);
  }
  return twin;
}

} // namespace kern::ir::lower_detail
