// Unit tests of the runtime's JSON helpers: the number rule of the reports and their one record
// per line layout.
#include "runtime/json.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

using namespace kern::runtime;

TEST_CASE("json: computed numbers", "[runtime][json]") {
  // Whole values are integers, whatever the double held.
  CHECK(jsonText(jsonNumber(12.0)) == "12");
  CHECK(jsonNumber(12.0).is_number_integer());
  CHECK(jsonText(jsonNumber(-3.0)) == "-3");
  CHECK(jsonText(jsonNumber(63e9)) == "63000000000");
  CHECK(jsonText(jsonNumber(0.0)) == "0");
  // Others keep 9 significant digits, as printf's %.9g writes them.
  CHECK(jsonText(jsonNumber(1.0 / 3.0)) == "0.333333333");
  CHECK(jsonText(jsonNumber(0.145)) == "0.145");
  CHECK(jsonText(jsonNumber(18.625473829201)) == "18.6254738");
  CHECK(jsonText(jsonNumber(1.00747309e-05)) == "1.00747309e-05");
  CHECK(jsonText(jsonNumber(0.0001)) == "0.0001");
  CHECK(jsonText(jsonNumber(1e20)) == "1e+20");
  // A value that rounds to a whole number is one.
  CHECK(jsonText(jsonNumber(2.0000000001)) == "2");
  // JSON has no infinity or NaN.
  CHECK(jsonNumber(std::numeric_limits<double>::infinity()).is_null());
  CHECK(jsonNumber(std::nan("")).is_null());
}

TEST_CASE("json: one record per line", "[runtime][json]") {
  // An array of objects has one element per line; an object holding one, one member per line;
  // the rest stays on its line.
  const Json report = {{"name", "x"},
                       {"device", {{"sms", 132}, {"cc", "9.0"}}},
                       {"sites", {{{"id", 1}, {"grid", {1, 2, 3}}}, {{"id", 2}}}},
                       {"empty", Json::array()},
                       {"program", {{"launches", 2}, {"sites", Json::array()}}}};
  CHECK(jsonLines(report) == R"({
  "name": "x",
  "device": {"sms":132,"cc":"9.0"},
  "sites": [
    {"id":1,"grid":[1,2,3]},
    {"id":2}
  ],
  "empty": [],
  "program": {
    "launches": 2,
    "sites": []
  }
}
)");
  // Without records it is one line.
  CHECK(jsonLines(Json{{"a", 1}, {"b", {1, 2}}}) == "{\"a\":1,\"b\":[1,2]}\n");
}

TEST_CASE("json: bytes that are not UTF-8", "[runtime][json]") {
  // A file name is any bytes: they are replaced, not thrown on, and the rest is escaped.
  CHECK(jsonText(Json("a\xff\"b\n")) == "\"a\xef\xbf\xbd\\\"b\\n\"");
  CHECK(jsonLines(Json{{"caf\xc3\xa9\xfe", {{{"x", "\x01"}}}}}) ==
        "{\n  \"caf\xc3\xa9\xef\xbf\xbd\": [\n    {\"x\":\"\\u0001\"}\n  ]\n}\n");
}
