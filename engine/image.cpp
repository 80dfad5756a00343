// The program image (backend/program_image.h) of a compiled program: what the runtime is handed
// instead of the IR — kernels with their entry points, sites, globals and main.
#include "engine/engine_impl.h"

#include "ir/analysis.h"
#include "ir/analysis_structure.h"

namespace kern {

backend::SiteKind siteKind(ir::SiteKind k) {
  switch (k) {
  case ir::SiteKind::Load:
    return backend::SiteKind::Load;
  case ir::SiteKind::Store:
    return backend::SiteKind::Store;
  case ir::SiteKind::Atomic:
    return backend::SiteKind::Atomic;
  case ir::SiteKind::Branch:
    return backend::SiteKind::Branch;
  case ir::SiteKind::Loop:
    return backend::SiteKind::Loop;
  case ir::SiteKind::Barrier:
    return backend::SiteKind::Barrier;
  case ir::SiteKind::Call:
    return backend::SiteKind::Call;
  case ir::SiteKind::Printf:
    return backend::SiteKind::Printf;
  case ir::SiteKind::Launch:
    return backend::SiteKind::Launch;
  case ir::SiteKind::Other:
    break;
  }
  return backend::SiteKind::Other;
}

namespace {

backend::GlobalSpace globalSpace(ir::AddrSpace s) {
  switch (s) {
  case ir::AddrSpace::Host:
    return backend::GlobalSpace::Host;
  case ir::AddrSpace::Constant:
    return backend::GlobalSpace::Constant;
  default:
    return backend::GlobalSpace::Device;
  }
}

/// `void NAME(T1, T2 *)`: a kernel's signature as nvcc's front end prints a function (a space
/// before each run of '*').
std::string prettySignature(const std::string &name, const std::vector<KernelSignature> &sigs) {
  std::string out = "void " + name + "(";
  for (const KernelSignature &s : sigs) {
    if (s.name != name)
      continue;
    for (size_t i = 0; i < s.params.size(); ++i) {
      std::string t = s.params[i].type;
      std::string spaced;
      for (size_t c = 0; c < t.size(); ++c) {
        if (t[c] == '*' && c > 0 && t[c - 1] != '*' && t[c - 1] != ' ')
          spaced += ' ';
        spaced += t[c];
      }
      out += (i ? ", " : "") + spaced;
    }
    break;
  }
  return out + ")";
}

} // namespace

backend::GlobalImage globalImage(const ir::GlobalVar &g) {
  backend::GlobalImage gi{g.id, g.name, globalSpace(g.space), g.size, g.align, g.init, {}};
  for (const ir::GlobalReloc &r : g.relocs)
    gi.relocs.push_back({r.offset, r.target, r.addend});
  return gi;
}

backend::KernelImage kernelImage(const Program::Impl &p, size_t index,
                                 const backend::CompiledProgram &native) {
  const ir::Function &f = *p.module->kernels()[index];
  backend::KernelImage k;
  k.name = f.name;
  k.signature = prettySignature(f.name, p.signatures);
  k.fn = native.kernel(index);
  k.paramBytes = f.paramBytes;
  k.staticSharedBytes = f.staticSharedBytes;
  k.usesBarriers = f.usesBarriers;
  k.wholeBlock = native.kernelRunsWholeBlock(index);
  k.blockFn = native.blockKernel(index);
  k.blockFnCounts = k.blockFn && native.countsItself();
  k.orderedBlocks = ir::usesGlobalAtomicResults(f);
  k.launchBoundsMaxThreads = f.launchBoundsMaxThreads;
  // Without --regs, occupancy uses the IR's register estimate (ir/analysis.h), which the
  // kernel's signature already holds.
  k.registersEstimated = true;
  k.minComputeCapability = ir::requiredComputeCapability(f, k.minComputeCapabilityWhy);
  const ir::LocalMemoryNeed local = ir::localMemoryNeed(f);
  k.localBytesPerThread = local.bytesPerThread;
  k.localRegionBytes = local.regionBytesPerWarp;
  k.localRecursive = local.recursive;
  k.registers = 0;
  for (const KernelSignature &s : p.signatures)
    if (s.name == f.name) {
      k.registers = s.registers;
      for (size_t i = 0; i < s.params.size() && i < f.paramOffsets.size(); ++i)
        k.params.push_back({f.paramOffsets[i], s.params[i].size});
      break;
    }
  if (k.registers == 0)
    k.registers = ir::estimateRegisters(f);
  auto mangled = p.mangledNames.find(f.name);
  if (mangled != p.mangledNames.end())
    k.mangledName = mangled->second;
  return k;
}

const backend::ProgramImage &Program::Impl::image() {
  if (imageCache)
    return *imageCache;
  backend::ProgramImage &img = imageCache.emplace();
  img.name = module->sourceName;
  img.usesDeviceHeap = module->usesDeviceHeap;
  for (uint32_t f = 0; f < sources.fileCount(); ++f)
    img.files.push_back(sources.fileName(f));

  for (size_t i = 0; i < module->kernels().size(); ++i)
    img.kernels.push_back(kernelImage(*this, i, *native));

  img.sites.reserve(module->sites.size());
  for (const ir::Site &s : module->sites)
    img.sites.push_back(
        {s.loc.file, s.loc.line, s.loc.col, siteKind(s.kind), s.what, s.waitSixteenths});

  for (const ir::GlobalVar *g : module->globals)
    img.globals.push_back(globalImage(*g));

  img.main = native->main();

  // A run that selects launches one by one was compiled fast: the counting variant is compiled
  // when the runtime first profiles a launch.
  if (selectsLaunches(*options))
    img.countingKernels = [this](std::vector<backend::WarpFunction> &kernels, std::string &error) {
      if (!compileCounting()) {
        error = countingError;
        return false;
      }
      kernels.clear();
      for (size_t i = 0; i < module->kernels().size(); ++i)
        kernels.push_back(countingNative->kernel(i));
      return true;
    };
  return img;
}

} // namespace kern
