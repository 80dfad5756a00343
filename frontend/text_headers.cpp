// Lookup in the table of kern's text headers (the table itself is generated).
#include "frontend/text_headers.h"

namespace kern::frontend {

const TextHeader *findTextHeader(std::string_view name) {
  for (size_t i = 0; i < kTextHeaderCount; ++i)
    if (name == kTextHeaders[i].name)
      return &kTextHeaders[i];
  return nullptr;
}

} // namespace kern::frontend
