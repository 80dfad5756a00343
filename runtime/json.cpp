// The runtime's JSON helpers (runtime/json.h): the number rule of the reports and their layout.
#include "runtime/json.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace kern::runtime {

Json jsonNumber(double value) {
  if (!std::isfinite(value))
    return nullptr;
  // %.9g and back: the nearest double to the 9-digit decimal, which the library then writes
  // with those digits (it writes the shortest text that reads back as the same double).
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.9g", value);
  const double rounded = std::strtod(buffer, nullptr);
  // Whole values below 9e15 are exact in an int64_t and in a double.
  if (rounded == std::floor(rounded) && std::fabs(rounded) < 9e15)
    return static_cast<int64_t>(rounded);
  return rounded;
}

std::string jsonText(const Json &value, int indent) {
  return value.dump(indent, ' ', false, Json::error_handler_t::replace);
}

namespace {

/// An array of records (objects or arrays), or an empty array that would hold them.
bool holdsRecords(const Json &value) {
  return value.is_array() && (value.empty() || value.front().is_structured());
}

/// Whether `value` is written one element or member per line.
bool isExpanded(const Json &value) {
  if (value.is_array())
    return holdsRecords(value) && !value.empty();
  if (value.is_object())
    for (const Json &member : value)
      if (holdsRecords(member) || isExpanded(member))
        return true;
  return false;
}

void appendLines(std::string &out, const Json &value, size_t indent) {
  if (!isExpanded(value)) {
    out += jsonText(value);
    return;
  }
  const bool object = value.is_object();
  out += object ? '{' : '[';
  const char *separator = "\n";
  for (auto it = value.begin(); it != value.end(); ++it) {
    out += separator;
    separator = ",\n";
    out.append(indent + 2, ' ');
    if (object)
      out += jsonText(it.key()) + ": ";
    appendLines(out, it.value(), indent + 2);
  }
  out += '\n';
  out.append(indent, ' ');
  out += object ? '}' : ']';
}

} // namespace

std::string jsonLines(const Json &value) {
  std::string out;
  appendLines(out, value, 0);
  return out + "\n";
}

} // namespace kern::runtime
