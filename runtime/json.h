// JSON in the runtime's files (the report, the trace, device profiles): nlohmann's library, with
// kern's rule for computed numbers and its line layout. Only runtime sources include this header,
// so no other layer sees the library's types.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace kern::runtime {

/// Objects keep their members in the order they are added, so a file reads in the order it is
/// written (schema and version first, the device before the launches).
using Json = nlohmann::ordered_json;

/// A computed number as the reports write it: rounded to 9 significant digits (ratios such as
/// 1/3 print as 0.333333333, not with 17 digits), then an integer if the rounded value is whole
/// (a count computed in double stays 12, not 12.0); not finite: null.
Json jsonNumber(double value);

/// value.dump(indent) (-1: all on one line), with bytes that are not UTF-8 written as U+FFFD: a
/// file name may be any bytes, and the library throws on them rather than write invalid JSON.
std::string jsonText(const Json &value, int indent = -1);

/// The JSON text of `value` with one record per line: an array of objects or arrays (sites,
/// launches, trace events) has one element per line, an object that holds such an array (or an
/// empty one) one member per line, each indented by two spaces; everything else is on one line.
/// The library's dump() writes all on one line or every member on a line of its own, which makes
/// a report 30 times as many lines and twice the bytes.
std::string jsonLines(const Json &value);

} // namespace kern::runtime
