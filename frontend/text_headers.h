// The headers kern provides as text (frontend/headers/*.h, embedded into the library at build
// time by cmake/EmbedHeaders.cmake): helper_cuda.h and the other helpers of CUDA's samples,
// written in the language kern compiles. The preprocessor finds them by name.
#pragma once

#include <cstddef>
#include <string_view>

namespace kern::frontend {

struct TextHeader {
  const char *name; ///< the name an #include uses: "helper_cuda.h"
  const char *text; ///< the file's text, zero-terminated
  size_t size;      ///< its length in bytes
};

/// Every text header (generated).
extern const TextHeader kTextHeaders[];
extern const size_t kTextHeaderCount;

/// The text header called `name`, or null.
const TextHeader *findTextHeader(std::string_view name);

/// How diagnostics and __FILE__ name a text header: "<kern>/helper_cuda.h".
inline constexpr std::string_view kTextHeaderPrefix = "<kern>/";

} // namespace kern::frontend
