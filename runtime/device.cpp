// Device profiles: the built-in table (runtime/profiles.def), validation, user-defined profiles in
// JSON (read and written with nlohmann's library), and the one-line summary of `kern devices`.
#include "runtime/device.h"

#include "runtime/json.h"
#include "runtime/ncu_metrics.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <system_error>
#include <variant>

namespace kern::runtime {

namespace {

std::vector<DeviceProfile> makeBuiltinProfiles() {
  std::vector<DeviceProfile> profiles;
#define KERN_PROFILE(id)                                                                           \
  {                                                                                                \
    DeviceProfile p;                                                                               \
    p.name = #id;
#define KERN_SET(field, value) p.field = value;
#define KERN_END_PROFILE()                                                                         \
  profiles.push_back(p);                                                                           \
  }
#include "runtime/profiles.def"
  return profiles;
}

// --- The field table: one row per member of DeviceProfile, in the order of the struct. JSON
// reading and writing both go through it, so a profile file uses exactly the member names.

using Member =
    std::variant<std::string DeviceProfile::*, int DeviceProfile::*, uint64_t DeviceProfile::*,
                 double DeviceProfile::*, RegisterAllocation DeviceProfile::*,
                 BankRule DeviceProfile::*, GlobalRule DeviceProfile::*>;

struct Field {
  const char *name;
  Member member;
};

const Field kFields[] = {
    {"name", &DeviceProfile::name},
    {"marketingName", &DeviceProfile::marketingName},
    {"ccMajor", &DeviceProfile::ccMajor},
    {"ccMinor", &DeviceProfile::ccMinor},
    {"smCount", &DeviceProfile::smCount},
    {"warpSize", &DeviceProfile::warpSize},
    {"maxThreadsPerBlock", &DeviceProfile::maxThreadsPerBlock},
    {"maxThreadsPerSM", &DeviceProfile::maxThreadsPerSM},
    {"maxBlocksPerSM", &DeviceProfile::maxBlocksPerSM},
    {"registersPerSM", &DeviceProfile::registersPerSM},
    {"registersPerBlock", &DeviceProfile::registersPerBlock},
    {"maxRegistersPerThread", &DeviceProfile::maxRegistersPerThread},
    {"registerAllocation", &DeviceProfile::registerAllocation},
    {"registerAllocationUnit", &DeviceProfile::registerAllocationUnit},
    {"warpAllocationGranularity", &DeviceProfile::warpAllocationGranularity},
    {"sharedPerSM", &DeviceProfile::sharedPerSM},
    {"sharedPerBlockDefault", &DeviceProfile::sharedPerBlockDefault},
    {"sharedPerBlockOptIn", &DeviceProfile::sharedPerBlockOptIn},
    {"sharedAllocationUnit", &DeviceProfile::sharedAllocationUnit},
    {"sharedReservedPerBlock", &DeviceProfile::sharedReservedPerBlock},
    {"sharedBanks", &DeviceProfile::sharedBanks},
    {"bankRule", &DeviceProfile::bankRule},
    {"globalRule", &DeviceProfile::globalRule},
    {"maxGridX", &DeviceProfile::maxGridX},
    {"maxGridY", &DeviceProfile::maxGridY},
    {"maxGridZ", &DeviceProfile::maxGridZ},
    {"maxBlockX", &DeviceProfile::maxBlockX},
    {"maxBlockY", &DeviceProfile::maxBlockY},
    {"maxBlockZ", &DeviceProfile::maxBlockZ},
    {"maxKernelParamBytes", &DeviceProfile::maxKernelParamBytes},
    {"localBytesPerThread", &DeviceProfile::localBytesPerThread},
    {"constantMemoryBytes", &DeviceProfile::constantMemoryBytes},
    {"clockRateKHz", &DeviceProfile::clockRateKHz},
    {"memoryBytes", &DeviceProfile::memoryBytes},
    {"memoryClockKHz", &DeviceProfile::memoryClockKHz},
    {"memoryBusWidthBits", &DeviceProfile::memoryBusWidthBits},
    {"pcieGeneration", &DeviceProfile::pcieGeneration},
    {"pcieLanes", &DeviceProfile::pcieLanes},
    {"pcieBandwidth", &DeviceProfile::pcieBandwidth},
    {"transferLatencyUs", &DeviceProfile::transferLatencyUs},
    {"pinnedEfficiency", &DeviceProfile::pinnedEfficiency},
    {"pageableEfficiency", &DeviceProfile::pageableEfficiency},
    {"pageableKneeBytes", &DeviceProfile::pageableKneeBytes},
    {"pageableBeyondKneeEfficiency", &DeviceProfile::pageableBeyondKneeEfficiency},
    {"issueRate", &DeviceProfile::issueRate},
    {"fp64PerCycle", &DeviceProfile::fp64PerCycle},
    {"xuPerCycle", &DeviceProfile::xuPerCycle},
    {"aduPerCycle", &DeviceProfile::aduPerCycle},
    {"dependentIssueCycles", &DeviceProfile::dependentIssueCycles},
    {"sharedWavefrontsPerCycle", &DeviceProfile::sharedWavefrontsPerCycle},
    {"sharedLatencyCycles", &DeviceProfile::sharedLatencyCycles},
    {"l2LatencyCycles", &DeviceProfile::l2LatencyCycles},
    {"l1LatencyCycles", &DeviceProfile::l1LatencyCycles},
    {"l1Bytes", &DeviceProfile::l1Bytes},
    {"dramLatencyCycles", &DeviceProfile::dramLatencyCycles},
    {"l2Bytes", &DeviceProfile::l2Bytes},
    {"l2Bandwidth", &DeviceProfile::l2Bandwidth},
    {"l2PartialSectorsPerCycle", &DeviceProfile::l2PartialSectorsPerCycle},
    {"dramEfficiency", &DeviceProfile::dramEfficiency},
    {"atomicsPerCycle", &DeviceProfile::atomicsPerCycle},
    {"atomicUnitsPerCycle", &DeviceProfile::atomicUnitsPerCycle},
    {"atomicChunkPassesPerCycle", &DeviceProfile::atomicChunkPassesPerCycle},
    {"atomicReturnCost", &DeviceProfile::atomicReturnCost},
    {"barrierCycles", &DeviceProfile::barrierCycles},
    {"barrierCyclesPerWarp", &DeviceProfile::barrierCyclesPerWarp},
    {"dramAccessBytes", &DeviceProfile::dramAccessBytes},
    {"launchOverheadUs", &DeviceProfile::launchOverheadUs},
};

// Enumerator names as JSON spells them: the C++ enumerator names.
template <typename E> struct EnumName {
  E value;
  const char *name;
};
const EnumName<RegisterAllocation> kRegisterAllocationNames[] = {
    {RegisterAllocation::PerBlock, "PerBlock"}, {RegisterAllocation::PerWarp, "PerWarp"}};
const EnumName<BankRule> kBankRuleNames[] = {{BankRule::HalfWarp, "HalfWarp"},
                                             {BankRule::WarpMulticast, "WarpMulticast"}};
const EnumName<GlobalRule> kGlobalRuleNames[] = {{GlobalRule::Cc10, "Cc10"},
                                                 {GlobalRule::Cc12, "Cc12"},
                                                 {GlobalRule::Cc2x, "Cc2x"},
                                                 {GlobalRule::Sectors, "Sectors"}};

template <typename E, size_t N> const char *enumName(const EnumName<E> (&names)[N], E value) {
  for (const auto &entry : names)
    if (entry.value == value)
      return entry.name;
  return "?";
}

/// "\"HalfWarp\" or \"WarpMulticast\"", for error messages.
template <typename E, size_t N> std::string enumChoices(const EnumName<E> (&names)[N]) {
  std::string out;
  for (size_t i = 0; i < N; ++i) {
    if (i > 0)
      out += i + 1 == N ? " or " : ", ";
    out += '"';
    out += names[i].name;
    out += '"';
  }
  return out;
}

/// The shortest text that reads back as the same double (std::to_chars round-trips).
std::string formatDouble(double value) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

bool isPowerOfTwo(uint64_t value) { return value != 0 && (value & (value - 1)) == 0; }

std::string singleQuoted(std::string_view name) { return "'" + std::string(name) + "'"; }

// --- Validation. Each check names the field and the value; consistency checks name both fields.

class Validator {
public:
  explicit Validator(std::string &error) : error_(error) {}

  bool ok() const { return ok_; }

  void fail(const std::string &message) {
    if (ok_) {
      error_ = message;
      ok_ = false;
    }
  }
  void positive(const char *field, int64_t value) {
    if (value <= 0)
      fail("field " + singleQuoted(field) + " must be positive, got " + std::to_string(value));
  }
  void positive(const char *field, uint64_t value) {
    if (value == 0)
      fail("field " + singleQuoted(field) + " must be positive, got 0");
  }
  void positive(const char *field, int value) { positive(field, int64_t(value)); }
  void nonNegative(const char *field, int value) {
    if (value < 0)
      fail("field " + singleQuoted(field) + " must not be negative, got " + std::to_string(value));
  }
  void powerOfTwo(const char *field, uint64_t value) {
    if (!isPowerOfTwo(value))
      fail("field " + singleQuoted(field) + " must be a power of two, got " +
           std::to_string(value));
  }
  void multipleOf(const char *field, int value, int unit) {
    if (unit > 0 && value % unit != 0)
      fail("field " + singleQuoted(field) + " must be a multiple of " + std::to_string(unit) +
           ", got " + std::to_string(value));
  }
  void notAbove(const char *field, uint64_t value, const char *limitField, uint64_t limit) {
    if (value > limit)
      fail("field " + singleQuoted(field) + " (" + std::to_string(value) +
           ") must not exceed field " + singleQuoted(limitField) + " (" + std::to_string(limit) +
           ")");
  }
  void positiveReal(const char *field, double value) {
    if (!(value > 0) || !std::isfinite(value))
      fail("field " + singleQuoted(field) + " must be positive, got " + formatDouble(value));
  }
  void fraction(const char *field, double value) {
    if (!(value > 0 && value <= 1))
      fail("field " + singleQuoted(field) + " must be in (0, 1], got " + formatDouble(value));
  }

private:
  std::string &error_;
  bool ok_ = true;
};

bool isNameCharacter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.';
}

// --- Reading a profile: nlohmann's SAX parser hands each member of the one flat object to
// ProfileReader, which keeps them in order (duplicates included, so that they can be refused),
// with each number's literal text (integers are read exactly, and messages show what was
// written).

struct JsonValue {
  enum class Kind { String, Number, Boolean, Null, Object, Array };
  Kind kind = Kind::String;
  std::string text; // the string's contents, or the number's literal text
  bool boolean = false;

  /// The value as an error message shows it: "\"many\"", 1.5, true, null, an array.
  std::string shown() const {
    switch (kind) {
    case Kind::String:
      return "\"" + text + "\"";
    case Kind::Number:
      return text;
    case Kind::Boolean:
      return boolean ? "true" : "false";
    case Kind::Null:
      return "null";
    case Kind::Object:
      return "an object";
    case Kind::Array:
      return "an array";
    }
    return text;
  }
  bool isInteger() const {
    return kind == Kind::Number && text.find_first_of(".eE") == std::string::npos;
  }
};

struct JsonMember {
  std::string key;
  JsonValue value;
};

/// "line L, column C" of a byte offset into `text` (both 1-based; columns count bytes).
std::string lineAndColumn(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  const std::string_view before = text.substr(0, offset);
  const size_t line = 1 + size_t(std::count(before.begin(), before.end(), '\n'));
  const size_t lineStart = before.rfind('\n'); // npos + 1 == 0: the first line
  return "line " + std::to_string(line) + ", column " +
         std::to_string(offset - (lineStart + 1) + 1);
}

bool endsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

class ProfileReader final : public nlohmann::json_sax<nlohmann::json> {
public:
  explicit ProfileReader(std::string_view text) : text_(text) {}

  /// Parses the whole text; on a syntax error, or a top level that is not an object, sets
  /// `error` ("line L, column C: " and the reason).
  bool read(std::vector<JsonMember> &members, std::string &error) {
    if (!nlohmann::json::sax_parse(text_.begin(), text_.end(), this)) {
      error = error_;
      return false;
    }
    members = std::move(members_);
    return true;
  }

  bool null() override { return value(JsonValue::Kind::Null, ""); }
  bool boolean(bool b) override {
    if (!value(JsonValue::Kind::Boolean, ""))
      return false;
    if (depth_ == 1)
      members_.back().value.boolean = b;
    return true;
  }
  bool number_integer(number_integer_t v) override {
    return value(JsonValue::Kind::Number, std::to_string(v));
  }
  bool number_unsigned(number_unsigned_t v) override {
    return value(JsonValue::Kind::Number, std::to_string(v));
  }
  bool number_float(number_float_t, const string_t &literal) override {
    return value(JsonValue::Kind::Number, literal);
  }
  bool string(string_t &s) override { return value(JsonValue::Kind::String, s); }
  bool binary(binary_t &) override { return true; } // JSON text has no binary values
  bool key(string_t &k) override {
    if (depth_ == 1)
      members_.push_back({k, {}});
    return true;
  }
  bool start_object(std::size_t) override { return open(JsonValue::Kind::Object); }
  bool start_array(std::size_t) override { return open(JsonValue::Kind::Array); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }

  bool parse_error(std::size_t byte, const std::string &token,
                   const nlohmann::json::exception &e) override {
    const std::string_view what = e.what();
    // A number too large for a double: the field and the literal, as for other bad values.
    if (e.id == kNumberOverflow && depth_ == 1 && !members_.empty()) {
      error_ = "field '" + members_.back().key + "' is out of range, got " + token;
      return false;
    }
    // The library's message: "[json.exception.parse_error.101] parse error at line L, column C:
    // syntax error while parsing CONTEXT - REASON[; last read: 'TEXT'][; expected TOKEN]". What
    // it expected says where the reader was; when it expected nothing in particular, REASON
    // (a malformed string, number or literal) is the message.
    std::string reason;
    if (endsWith(what, "; expected end of input"))
      reason = "unexpected text after the profile object";
    else if (endsWith(what, "; expected string literal"))
      reason = "expected a field name in quotes";
    else if (endsWith(what, "; expected ':'"))
      reason = "expected ':' after the field name";
    else if (endsWith(what, "; expected '}'"))
      reason = "expected ',' or '}' after a field";
    else if (endsWith(what, "; expected '[', '{', or a literal") ||
             what.find(" - invalid literal;") != what.npos) // a misspelt true, false or null
      reason = depth_ == 0 ? "expected '{' at the start of a device profile"
                           : "expected a value (a string, a number, true or false)";
    else if (size_t dash = what.find(" - "); dash != std::string_view::npos)
      reason = std::string(what.substr(dash + 3, what.find("; last read:") - (dash + 3)));
    else
      reason = std::string(what.substr(what.find("] ") + 2));
    // `byte` counts the bytes read, the last being the one that broke the rule. An unexpected
    // string or number was read whole: point at its start. A misspelt true, false or null: at
    // its first letter.
    size_t at = byte > 0 ? byte - 1 : 0;
    if (what.find("unexpected string literal") != std::string_view::npos ||
        what.find("unexpected number literal") != std::string_view::npos)
      at = byte >= token.size() ? byte - token.size() : 0;
    else if (what.find("invalid literal") != std::string_view::npos)
      while (at > 0 && at <= text_.size() &&
             std::isalpha(static_cast<unsigned char>(text_[at - 1])))
        --at;
    error_ = lineAndColumn(text_, at) + ": " + reason;
    return false;
  }

private:
  static constexpr int kNumberOverflow = 406; // the library's out_of_range.406

  /// A scalar: the value of the current member (depth 1), part of a nested one (deeper, kept as
  /// the member's Object or Array kind), or a top level that is not an object.
  bool value(JsonValue::Kind kind, std::string text) {
    if (depth_ == 0)
      return notAnObject();
    if (depth_ == 1)
      members_.back().value = {kind, std::move(text)};
    return true;
  }
  bool open(JsonValue::Kind kind) {
    if (depth_ == 0 && kind != JsonValue::Kind::Object)
      return notAnObject();
    if (depth_ == 1)
      members_.back().value = {kind, ""};
    ++depth_;
    return true;
  }
  bool close() {
    --depth_;
    return true;
  }
  bool notAnObject() {
    const size_t start = text_.find_first_not_of(" \t\n\r");
    error_ = lineAndColumn(text_, start) + ": expected '{' at the start of a device profile";
    return false;
  }

  std::string_view text_;
  std::vector<JsonMember> members_;
  int depth_ = 0; // 0: outside the profile object, 1: in it, 2 and more: in a nested value
  std::string error_;
};

// --- Setting one field from a JSON value.

std::string mustBe(const char *field, const char *what, const JsonValue &value) {
  return "field " + singleQuoted(field) + " must be " + what + ", got " + value.shown();
}

bool readInteger(const char *field, const JsonValue &value, int64_t min, int64_t max, int64_t &out,
                 std::string &error) {
  if (!value.isInteger()) {
    error = mustBe(field, "an integer", value);
    return false;
  }
  const char *first = value.text.data();
  const char *last = first + value.text.size();
  auto result = std::from_chars(first, last, out);
  if (result.ec != std::errc() || out < min || out > max) {
    if (value.text[0] == '-')
      error = "field " + singleQuoted(field) + " must not be negative, got " + value.text;
    else
      error = "field " + singleQuoted(field) + " is too large, got " + value.text;
    return false;
  }
  return true;
}

template <typename E, size_t N>
bool readEnum(const char *field, const JsonValue &value, const EnumName<E> (&names)[N], E &out,
              std::string &error) {
  if (value.kind == JsonValue::Kind::String) {
    for (const auto &entry : names) {
      if (value.text == entry.name) {
        out = entry.value;
        return true;
      }
    }
  }
  error =
      "field " + singleQuoted(field) + " must be " + enumChoices(names) + ", got " + value.shown();
  return false;
}

bool setField(DeviceProfile &profile, const Field &field, const JsonValue &value,
              std::string &error) {
  const char *name = field.name;
  if (auto m = std::get_if<std::string DeviceProfile::*>(&field.member)) {
    if (value.kind != JsonValue::Kind::String) {
      error = mustBe(name, "a string", value);
      return false;
    }
    profile.*(*m) = value.text;
    return true;
  }
  if (auto m = std::get_if<int DeviceProfile::*>(&field.member)) {
    // Negative integers are read here and rejected by validateProfile with the field's rule.
    int64_t v = 0;
    if (!readInteger(name, value, std::numeric_limits<int>::min(), std::numeric_limits<int>::max(),
                     v, error))
      return false;
    profile.*(*m) = int(v);
    return true;
  }
  if (auto m = std::get_if<uint64_t DeviceProfile::*>(&field.member)) {
    int64_t v = 0;
    if (!readInteger(name, value, 0, std::numeric_limits<int64_t>::max(), v, error))
      return false;
    profile.*(*m) = uint64_t(v);
    return true;
  }
  if (auto m = std::get_if<double DeviceProfile::*>(&field.member)) {
    if (value.kind != JsonValue::Kind::Number) {
      error = mustBe(name, "a number", value);
      return false;
    }
    double v = 0;
    auto result = std::from_chars(value.text.data(), value.text.data() + value.text.size(), v);
    if (result.ec != std::errc() || !std::isfinite(v)) {
      error = "field " + singleQuoted(name) + " is out of range, got " + value.text;
      return false;
    }
    profile.*(*m) = v;
    return true;
  }
  if (auto m = std::get_if<RegisterAllocation DeviceProfile::*>(&field.member))
    return readEnum(name, value, kRegisterAllocationNames, profile.*(*m), error);
  if (auto m = std::get_if<BankRule DeviceProfile::*>(&field.member))
    return readEnum(name, value, kBankRuleNames, profile.*(*m), error);
  if (auto m = std::get_if<GlobalRule DeviceProfile::*>(&field.member))
    return readEnum(name, value, kGlobalRuleNames, profile.*(*m), error);
  return false;
}

/// 1024-based sizes as CUDA's documents write them: "48 KB", "80 GB"; exact bytes otherwise.
std::string formatSize(uint64_t bytes) {
  const uint64_t kb = 1024, mb = kb * 1024, gb = mb * 1024;
  if (bytes >= gb && bytes % gb == 0)
    return std::to_string(bytes / gb) + " GB";
  if (bytes >= mb && bytes % mb == 0)
    return std::to_string(bytes / mb) + " MB";
  if (bytes >= kb && bytes % kb == 0)
    return std::to_string(bytes / kb) + " KB";
  return std::to_string(bytes) + " B";
}

} // namespace

const std::vector<DeviceProfile> &builtinProfiles() {
  static const std::vector<DeviceProfile> profiles = makeBuiltinProfiles();
  return profiles;
}

const DeviceProfile *findProfile(std::string_view name) {
  for (const DeviceProfile &profile : builtinProfiles())
    if (profile.name == name)
      return &profile;
  return nullptr;
}

const char *bankRuleName(BankRule rule) { return enumName(kBankRuleNames, rule); }
const char *globalRuleName(GlobalRule rule) { return enumName(kGlobalRuleNames, rule); }
const char *registerAllocationName(RegisterAllocation allocation) {
  return enumName(kRegisterAllocationNames, allocation);
}

bool validateProfile(const DeviceProfile &p, std::string &error) {
  Validator v(error);

  // Field by field, in the order of the struct.
  if (p.name.empty())
    v.fail("field 'name' must not be empty");
  for (char c : p.name) {
    if (!isNameCharacter(c)) {
      v.fail("field 'name' must be letters, digits, '.', '-' or '_', got \"" + p.name + "\"");
      break;
    }
  }
  if (p.marketingName.empty())
    v.fail("field 'marketingName' must not be empty");
  v.positive("ccMajor", p.ccMajor);
  v.nonNegative("ccMinor", p.ccMinor);
  v.positive("smCount", p.smCount);
  // kern's warp functions advance exactly 32 lanes (ARCHITECTURE.md), as every NVIDIA GPU does.
  if (p.warpSize != 32)
    v.fail("field 'warpSize' must be 32, got " + std::to_string(p.warpSize));
  v.positive("maxThreadsPerBlock", p.maxThreadsPerBlock);
  v.multipleOf("maxThreadsPerBlock", p.maxThreadsPerBlock, 32);
  v.positive("maxThreadsPerSM", p.maxThreadsPerSM);
  v.multipleOf("maxThreadsPerSM", p.maxThreadsPerSM, 32);
  v.positive("maxBlocksPerSM", p.maxBlocksPerSM);
  v.positive("registersPerSM", p.registersPerSM);
  v.positive("registersPerBlock", p.registersPerBlock);
  v.positive("maxRegistersPerThread", p.maxRegistersPerThread);
  v.positive("registerAllocationUnit", p.registerAllocationUnit);
  v.powerOfTwo("registerAllocationUnit", uint64_t(p.registerAllocationUnit));
  v.positive("warpAllocationGranularity", p.warpAllocationGranularity);
  v.powerOfTwo("warpAllocationGranularity", uint64_t(p.warpAllocationGranularity));
  v.positive("sharedPerSM", p.sharedPerSM);
  v.positive("sharedPerBlockDefault", p.sharedPerBlockDefault);
  v.positive("sharedPerBlockOptIn", p.sharedPerBlockOptIn);
  v.positive("sharedAllocationUnit", p.sharedAllocationUnit);
  v.powerOfTwo("sharedAllocationUnit", p.sharedAllocationUnit);
  // The bank rules of HARDWARE-MODEL.md are defined for 16 banks (half-warp) and 32 (warp).
  if (p.bankRule == BankRule::HalfWarp && p.sharedBanks != 16)
    v.fail("field 'sharedBanks' must be 16 with bankRule HalfWarp, got " +
           std::to_string(p.sharedBanks));
  if (p.bankRule == BankRule::WarpMulticast && p.sharedBanks != 32)
    v.fail("field 'sharedBanks' must be 32 with bankRule WarpMulticast, got " +
           std::to_string(p.sharedBanks));
  v.positive("maxGridX", p.maxGridX);
  v.positive("maxGridY", p.maxGridY);
  v.positive("maxGridZ", p.maxGridZ);
  v.positive("maxBlockX", p.maxBlockX);
  v.positive("maxBlockY", p.maxBlockY);
  v.positive("maxBlockZ", p.maxBlockZ);
  v.positive("maxKernelParamBytes", p.maxKernelParamBytes);
  v.positive("localBytesPerThread", p.localBytesPerThread);
  v.positive("constantMemoryBytes", p.constantMemoryBytes);
  v.positive("clockRateKHz", p.clockRateKHz);
  v.positive("memoryBytes", p.memoryBytes);
  v.nonNegative("memoryClockKHz", p.memoryClockKHz);
  v.nonNegative("memoryBusWidthBits", p.memoryBusWidthBits);
  v.positive("pcieGeneration", p.pcieGeneration);
  if (!isPowerOfTwo(uint64_t(std::max(p.pcieLanes, 0))) || p.pcieLanes > 32)
    v.fail("field 'pcieLanes' must be 1, 2, 4, 8, 16 or 32, got " + std::to_string(p.pcieLanes));
  if (!(p.pcieBandwidth > 0) || !std::isfinite(p.pcieBandwidth))
    v.fail("field 'pcieBandwidth' must be positive, got " + formatDouble(p.pcieBandwidth));
  if (!(p.transferLatencyUs >= 0) || !std::isfinite(p.transferLatencyUs))
    v.fail("field 'transferLatencyUs' must not be negative, got " +
           formatDouble(p.transferLatencyUs));
  v.fraction("pinnedEfficiency", p.pinnedEfficiency);
  v.fraction("pageableEfficiency", p.pageableEfficiency);
  if (!(p.pageableKneeBytes >= 0) || !std::isfinite(p.pageableKneeBytes))
    v.fail("field 'pageableKneeBytes' must not be negative, got " +
           formatDouble(p.pageableKneeBytes));
  if (p.pageableKneeBytes > 0)
    v.fraction("pageableBeyondKneeEfficiency", p.pageableBeyondKneeEfficiency);
  v.positiveReal("issueRate", p.issueRate);
  for (auto [name, value] : {std::pair{"fp64PerCycle", p.fp64PerCycle},
                             {"xuPerCycle", p.xuPerCycle},
                             {"aduPerCycle", p.aduPerCycle}})
    if (!(value >= 0) || !std::isfinite(value))
      v.fail(std::string("field '") + name + "' must not be negative, got " + formatDouble(value));
  v.positive("dependentIssueCycles", p.dependentIssueCycles);
  v.positiveReal("sharedWavefrontsPerCycle", p.sharedWavefrontsPerCycle);
  v.positive("sharedLatencyCycles", p.sharedLatencyCycles);
  v.positive("l2LatencyCycles", p.l2LatencyCycles);
  v.nonNegative("l1LatencyCycles", p.l1LatencyCycles);
  if (p.l1LatencyCycles > 0)
    v.positive("l1Bytes", p.l1Bytes);
  v.positive("dramLatencyCycles", p.dramLatencyCycles);
  if (p.l2Bytes > 0)
    v.positiveReal("l2Bandwidth", p.l2Bandwidth);
  else if (!(p.l2Bandwidth >= 0) || !std::isfinite(p.l2Bandwidth))
    v.fail("field 'l2Bandwidth' must not be negative, got " + formatDouble(p.l2Bandwidth));
  if (!(p.l2PartialSectorsPerCycle >= 0) || !std::isfinite(p.l2PartialSectorsPerCycle))
    v.fail("field 'l2PartialSectorsPerCycle' must not be negative, got " +
           formatDouble(p.l2PartialSectorsPerCycle));
  v.fraction("dramEfficiency", p.dramEfficiency);
  v.positiveReal("atomicsPerCycle", p.atomicsPerCycle);
  v.positiveReal("atomicUnitsPerCycle", p.atomicUnitsPerCycle);
  v.positiveReal("atomicChunkPassesPerCycle", p.atomicChunkPassesPerCycle);
  if (!(p.atomicReturnCost >= 1) || !std::isfinite(p.atomicReturnCost))
    v.fail("field 'atomicReturnCost' must be at least 1, got " + formatDouble(p.atomicReturnCost));
  v.positive("barrierCycles", p.barrierCycles);
  v.nonNegative("barrierCyclesPerWarp", p.barrierCyclesPerWarp);
  if (p.dramAccessBytes != 32 && p.dramAccessBytes != 64 && p.dramAccessBytes != 128)
    v.fail("field 'dramAccessBytes' must be 32, 64 or 128, got " +
           std::to_string(p.dramAccessBytes));
  if (!(p.launchOverheadUs >= 0) || !std::isfinite(p.launchOverheadUs))
    v.fail("field 'launchOverheadUs' must not be negative, got " +
           formatDouble(p.launchOverheadUs));
  if (!v.ok())
    return false;

  // Consistency between fields.
  v.notAbove("maxThreadsPerBlock", p.maxThreadsPerBlock, "maxThreadsPerSM", p.maxThreadsPerSM);
  v.notAbove("registersPerBlock", p.registersPerBlock, "registersPerSM", p.registersPerSM);
  // One warp at the per-thread maximum must fit in a block, or the maximum means nothing.
  if (int64_t(p.maxRegistersPerThread) * p.warpSize > p.registersPerBlock)
    v.fail("field 'maxRegistersPerThread' (" + std::to_string(p.maxRegistersPerThread) +
           ") x warpSize (32) must not exceed field 'registersPerBlock' (" +
           std::to_string(p.registersPerBlock) + ")");
  v.notAbove("sharedPerBlockDefault", p.sharedPerBlockDefault, "sharedPerBlockOptIn",
             p.sharedPerBlockOptIn);
  // On cc8.0+ the per-SM total covers the largest block plus its reservation
  // (228 KB = 227 KB + 1 KB on H100).
  if (p.sharedPerBlockOptIn + p.sharedReservedPerBlock > p.sharedPerSM)
    v.fail("field 'sharedPerBlockOptIn' (" + std::to_string(p.sharedPerBlockOptIn) +
           ") plus field 'sharedReservedPerBlock' (" + std::to_string(p.sharedReservedPerBlock) +
           ") must not exceed field 'sharedPerSM' (" + std::to_string(p.sharedPerSM) + ")");
  v.notAbove("maxBlockX", p.maxBlockX, "maxThreadsPerBlock", p.maxThreadsPerBlock);
  v.notAbove("maxBlockY", p.maxBlockY, "maxThreadsPerBlock", p.maxThreadsPerBlock);
  v.notAbove("maxBlockZ", p.maxBlockZ, "maxThreadsPerBlock", p.maxThreadsPerBlock);
  return v.ok();
}

bool parseProfileJson(std::string_view json, DeviceProfile &out, std::string &error) {
  std::vector<JsonMember> members;
  ProfileReader reader(json);
  if (!reader.read(members, error))
    return false;

  for (size_t i = 0; i < members.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (members[i].key == members[j].key) {
        error = "duplicate field " + singleQuoted(members[i].key);
        return false;
      }
    }
  }

  DeviceProfile profile;
  bool hasBase = false;
  for (const JsonMember &member : members) {
    if (member.key != "base")
      continue;
    if (member.value.kind != JsonValue::Kind::String) {
      error = mustBe("base", "the name of a built-in profile", member.value);
      return false;
    }
    const DeviceProfile *base = findProfile(member.value.text);
    if (!base) {
      std::string names;
      for (const DeviceProfile &p : builtinProfiles())
        names += (names.empty() ? "" : ", ") + p.name;
      error = "unknown base profile " + singleQuoted(member.value.text) +
              " (built-in profiles: " + names + ")";
      return false;
    }
    profile = *base;
    hasBase = true;
  }

  constexpr size_t kFieldCount = sizeof kFields / sizeof kFields[0];
  bool given[kFieldCount] = {};
  for (const JsonMember &member : members) {
    if (member.key == "base")
      continue;
    size_t index = 0;
    while (index < kFieldCount && member.key != kFields[index].name)
      ++index;
    if (index == kFieldCount) {
      std::vector<std::string> known;
      for (const Field &field : kFields)
        known.push_back(field.name);
      const std::string nearest = nearestName(member.key, known);
      error = "unknown field " + singleQuoted(member.key) +
              (nearest.empty() ? "" : "; did you mean " + singleQuoted(nearest) + "?");
      return false;
    }
    if (!setField(profile, kFields[index], member.value, error))
      return false;
    given[index] = true;
  }

  // A profile always names itself, so that reports never show a user's GPU under a built-in name
  // by accident.
  if (!given[0]) { // kFields[0] is "name"
    error = "missing field 'name'";
    return false;
  }
  if (!hasBase) {
    for (size_t i = 0; i < kFieldCount; ++i) {
      if (!given[i]) {
        error = "missing field " + singleQuoted(kFields[i].name) +
                " (without \"base\", every field must be given)";
        return false;
      }
    }
  }

  if (!validateProfile(profile, error))
    return false;
  out = std::move(profile);
  return true;
}

namespace {

Json profileJson(const DeviceProfile &profile) {
  Json out = Json::object();
  for (const Field &field : kFields) {
    std::visit(
        [&](auto member) {
          using T = std::remove_cvref_t<decltype(profile.*member)>;
          const T &value = profile.*member;
          if constexpr (std::is_same_v<T, RegisterAllocation>)
            out[field.name] = registerAllocationName(value);
          else if constexpr (std::is_same_v<T, BankRule>)
            out[field.name] = bankRuleName(value);
          else if constexpr (std::is_same_v<T, GlobalRule>)
            out[field.name] = globalRuleName(value);
          else
            out[field.name] = value; // a double keeps its exact value: the file reads back equal
        },
        field.member);
  }
  return out;
}

} // namespace

std::string profileToJson(const DeviceProfile &profile) {
  return jsonText(profileJson(profile), 2) + "\n";
}

std::string profilesToJson(const std::vector<DeviceProfile> &profiles) {
  Json out = Json::array();
  for (const DeviceProfile &profile : profiles)
    out.push_back(profileJson(profile));
  return jsonText(out, 2) + "\n";
}

std::string profileSummary(const DeviceProfile &p) {
  char line[512];
  std::snprintf(line, sizeof line,
                "%-6s %-28s cc %d.%d, %3d SMs, %4d threads/SM, %2d blocks/SM, %5d regs/SM, "
                "%s shared/SM (%s/block), %s, PCIe %d.0 x%d",
                p.name.c_str(), p.marketingName.c_str(), p.ccMajor, p.ccMinor, p.smCount,
                p.maxThreadsPerSM, p.maxBlocksPerSM, p.registersPerSM,
                formatSize(p.sharedPerSM).c_str(), formatSize(p.sharedPerBlockOptIn).c_str(),
                formatSize(p.memoryBytes).c_str(), p.pcieGeneration, p.pcieLanes);
  return line;
}

double transferSeconds(const DeviceProfile &profile, uint64_t bytes, bool pinned,
                       bool hostToDevice) {
  double efficiency = pinned ? profile.pinnedEfficiency : profile.pageableEfficiency;
  double seconds =
      profile.transferLatencyUs * 1e-6 + double(bytes) / (profile.pcieBandwidth * efficiency);
  if (!pinned && hostToDevice && profile.pageableKneeBytes > 0 &&
      double(bytes) > profile.pageableKneeBytes)
    seconds += (double(bytes) - profile.pageableKneeBytes) /
               (profile.pcieBandwidth * profile.pageableBeyondKneeEfficiency);
  return seconds;
}

} // namespace kern::runtime
