// The runtime's books of modules compiled and loaded while a program runs (NVRTC programs and
// the driver API's cuModuleLoad*; runtime/api_modules.cpp). Their code comes from the engine
// through backend::ModuleCompiler; their kernels, sites, files and globals join the program
// image's tables, numbered after the program's.
#pragma once

#include "backend/program_image.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kern::runtime {

/// A module image (kern's "PTX": what nvrtcGetPTX hands out and cuModuleLoadData takes) read
/// back into the request it describes. False if `text` is not one.
bool parseModuleImage(const std::string &text, backend::ModuleRequest &out);
/// The image of a module: a text that starts with a comment line naming it, then each part
/// (name, options, headers, source) as `// <part> <bytes>` and its bytes.
std::string moduleImageText(const backend::ModuleRequest &request);

struct RuntimeModules {
  /// One compile of an image: its result and the log.
  struct Compiled {
    bool ok = false;
    std::string log;
    backend::ModuleImage image;
    bool loaded = false;    // its ids are in use: a second load compiles it again
    uint32_t firstSite = 0; // where its sites and files go in the image's tables
    uint32_t firstFile = 0;
  };
  /// A module loaded by cuModuleLoad*: its kernels and globals in the program image's tables.
  struct Loaded {
    std::string name;
    std::vector<uint32_t> kernels; ///< indices into ProgramImage::kernels
    std::vector<size_t> globals;   ///< indices into ProgramImage::globals
    bool live = true;              ///< not unloaded
  };

  backend::ModuleCompiler compiler;
  std::map<std::string, std::shared_ptr<Compiled>> compiled; ///< by image text
  std::vector<Loaded> loaded;
  /// The ids that the next module compiled starts from.
  uint32_t nextSite = 1;
  uint32_t nextGlobal = 0;
  uint32_t nextFile = 0;
};

} // namespace kern::runtime
