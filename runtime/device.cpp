// Device profiles: the built-in table (runtime/profiles.def), validation, a small JSON reader for
// user-defined profiles, and the one-line summary of `kern devices`.
#include "runtime/device.h"

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
    {"issueRate", &DeviceProfile::issueRate},
    {"dependentIssueCycles", &DeviceProfile::dependentIssueCycles},
    {"sharedWavefrontsPerCycle", &DeviceProfile::sharedWavefrontsPerCycle},
    {"sharedLatencyCycles", &DeviceProfile::sharedLatencyCycles},
    {"l2LatencyCycles", &DeviceProfile::l2LatencyCycles},
    {"dramLatencyCycles", &DeviceProfile::dramLatencyCycles},
    {"l2Bytes", &DeviceProfile::l2Bytes},
    {"l2Bandwidth", &DeviceProfile::l2Bandwidth},
    {"dramEfficiency", &DeviceProfile::dramEfficiency},
    {"atomicsPerCycle", &DeviceProfile::atomicsPerCycle},
    {"barrierCycles", &DeviceProfile::barrierCycles},
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

std::string quoted(std::string_view name) { return "'" + std::string(name) + "'"; }

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
      fail("field " + quoted(field) + " must be positive, got " + std::to_string(value));
  }
  void positive(const char *field, uint64_t value) {
    if (value == 0)
      fail("field " + quoted(field) + " must be positive, got 0");
  }
  void positive(const char *field, int value) { positive(field, int64_t(value)); }
  void nonNegative(const char *field, int value) {
    if (value < 0)
      fail("field " + quoted(field) + " must not be negative, got " + std::to_string(value));
  }
  void powerOfTwo(const char *field, uint64_t value) {
    if (!isPowerOfTwo(value))
      fail("field " + quoted(field) + " must be a power of two, got " + std::to_string(value));
  }
  void multipleOf(const char *field, int value, int unit) {
    if (unit > 0 && value % unit != 0)
      fail("field " + quoted(field) + " must be a multiple of " + std::to_string(unit) + ", got " +
           std::to_string(value));
  }
  void notAbove(const char *field, uint64_t value, const char *limitField, uint64_t limit) {
    if (value > limit)
      fail("field " + quoted(field) + " (" + std::to_string(value) + ") must not exceed field " +
           quoted(limitField) + " (" + std::to_string(limit) + ")");
  }
  void positiveReal(const char *field, double value) {
    if (!(value > 0) || !std::isfinite(value))
      fail("field " + quoted(field) + " must be positive, got " + formatDouble(value));
  }
  void fraction(const char *field, double value) {
    if (!(value > 0 && value <= 1))
      fail("field " + quoted(field) + " must be in (0, 1], got " + formatDouble(value));
  }

private:
  std::string &error_;
  bool ok_ = true;
};

bool isNameCharacter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.';
}

// --- A JSON reader for one flat object of strings, numbers and booleans: all a profile needs.

struct JsonValue {
  enum class Kind { String, Number, Boolean };
  Kind kind = Kind::String;
  std::string text; // the string's contents, or the number's literal text
  bool boolean = false;

  /// The value as an error message shows it: "\"many\"", 1.5, true.
  std::string shown() const {
    switch (kind) {
    case Kind::String:
      return "\"" + text + "\"";
    case Kind::Number:
      return text;
    case Kind::Boolean:
      return boolean ? "true" : "false";
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

class JsonReader {
public:
  explicit JsonReader(std::string_view text) : text_(text) {}

  bool readObject(std::vector<JsonMember> &members, std::string &error) {
    skipSpace();
    if (!consume('{'))
      return fail("expected '{' at the start of a device profile", error);
    skipSpace();
    if (consume('}'))
      return finish(error);
    while (true) {
      skipSpace();
      if (peek() != '"')
        return fail("expected a field name in quotes", error);
      JsonMember member;
      if (!readString(member.key, error))
        return false;
      skipSpace();
      if (!consume(':'))
        return fail("expected ':' after the field name", error);
      skipSpace();
      if (!readValue(member.value, error))
        return false;
      members.push_back(std::move(member));
      skipSpace();
      if (consume(','))
        continue;
      if (consume('}'))
        return finish(error);
      return fail("expected ',' or '}' after a field", error);
    }
  }

private:
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool atEnd() const { return pos_ >= text_.size(); }
  bool consume(char c) {
    if (atEnd() || text_[pos_] != c)
      return false;
    ++pos_;
    return true;
  }
  void skipSpace() {
    while (!atEnd() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r'))
      ++pos_;
  }
  bool finish(std::string &error) {
    skipSpace();
    if (!atEnd())
      return fail("unexpected text after the profile object", error);
    return true;
  }
  /// Prefixes the message with the 1-based line and column of the current position.
  bool fail(const std::string &message, std::string &error) const {
    int line = 1, column = 1;
    for (size_t i = 0; i < pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    error = "line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + message;
    return false;
  }

  bool readValue(JsonValue &value, std::string &error) {
    char c = peek();
    if (c == '"') {
      value.kind = JsonValue::Kind::String;
      return readString(value.text, error);
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
      value.kind = JsonValue::Kind::Number;
      return readNumber(value.text, error);
    }
    if (text_.substr(pos_, 4) == "true") {
      pos_ += 4;
      value.kind = JsonValue::Kind::Boolean;
      value.boolean = true;
      return true;
    }
    if (text_.substr(pos_, 5) == "false") {
      pos_ += 5;
      value.kind = JsonValue::Kind::Boolean;
      value.boolean = false;
      return true;
    }
    if (c == '{' || c == '[')
      return fail("a device profile is one flat object: nested objects and arrays are not "
                  "supported",
                  error);
    return fail("expected a value (a string, a number, true or false)", error);
  }

  // JSON numbers: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?; the text is kept so that
  // integers are read exactly (a double would round memory sizes above 2^53).
  bool readNumber(std::string &out, std::string &error) {
    size_t start = pos_;
    auto digits = [&] {
      size_t first = pos_;
      while (!atEnd() && peek() >= '0' && peek() <= '9')
        ++pos_;
      return pos_ > first;
    };
    consume('-');
    if (peek() == '0') {
      ++pos_;
    } else if (!digits()) {
      pos_ = start;
      return fail("malformed number", error);
    }
    if (consume('.') && !digits()) {
      pos_ = start;
      return fail("malformed number", error);
    }
    if (peek() == 'e' || peek() == 'E') {
      ++pos_;
      if (!consume('+'))
        consume('-');
      if (!digits()) {
        pos_ = start;
        return fail("malformed number", error);
      }
    }
    out = std::string(text_.substr(start, pos_ - start));
    return true;
  }

  static void appendUtf8(std::string &out, uint32_t cp) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xC0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += char(0xE0 | (cp >> 12));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    } else {
      out += char(0xF0 | (cp >> 18));
      out += char(0x80 | ((cp >> 12) & 0x3F));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    }
  }

  bool readHex4(uint32_t &value) {
    if (pos_ + 4 > text_.size())
      return false;
    value = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text_[pos_ + i];
      value <<= 4;
      if (c >= '0' && c <= '9')
        value |= uint32_t(c - '0');
      else if (c >= 'a' && c <= 'f')
        value |= uint32_t(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        value |= uint32_t(c - 'A' + 10);
      else
        return false;
    }
    pos_ += 4;
    return true;
  }

  bool readString(std::string &out, std::string &error) {
    consume('"');
    out.clear();
    while (true) {
      if (atEnd())
        return fail("unterminated string", error);
      char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (static_cast<unsigned char>(c) < 0x20)
        return fail("control character in a string (write it as an escape)", error);
      ++pos_;
      if (c != '\\') {
        out += c;
        continue;
      }
      char e = peek();
      ++pos_;
      switch (e) {
      case '"':
      case '\\':
      case '/':
        out += e;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        uint32_t cp = 0;
        if (!readHex4(cp))
          return fail("malformed \\u escape", error);
        // A surrogate pair encodes one code point above U+FFFF.
        if (cp >= 0xD800 && cp < 0xDC00 && text_.substr(pos_, 2) == "\\u") {
          pos_ += 2;
          uint32_t low = 0;
          if (!readHex4(low) || low < 0xDC00 || low >= 0xE000)
            return fail("malformed \\u escape", error);
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        }
        appendUtf8(out, cp);
        break;
      }
      default:
        --pos_;
        return fail("unknown escape in a string", error);
      }
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
};

// --- Setting one field from a JSON value.

std::string mustBe(const char *field, const char *what, const JsonValue &value) {
  return "field " + quoted(field) + " must be " + what + ", got " + value.shown();
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
      error = "field " + quoted(field) + " must not be negative, got " + value.text;
    else
      error = "field " + quoted(field) + " is too large, got " + value.text;
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
  error = "field " + quoted(field) + " must be " + enumChoices(names) + ", got " + value.shown();
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
      error = "field " + quoted(name) + " is out of range, got " + value.text;
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
std::string formatBytes(uint64_t bytes) {
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

/// The text with JSON's escapes (no quotes around it): profiles and reports both write JSON.
std::string jsonEscape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char buffer[8];
        std::snprintf(buffer, sizeof buffer, "\\u%04x", unsigned(c));
        out += buffer;
      } else {
        out += c;
      }
    }
  }
  return out;
}

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
  v.positiveReal("issueRate", p.issueRate);
  v.positive("dependentIssueCycles", p.dependentIssueCycles);
  v.positiveReal("sharedWavefrontsPerCycle", p.sharedWavefrontsPerCycle);
  v.positive("sharedLatencyCycles", p.sharedLatencyCycles);
  v.positive("l2LatencyCycles", p.l2LatencyCycles);
  v.positive("dramLatencyCycles", p.dramLatencyCycles);
  if (p.l2Bytes > 0)
    v.positiveReal("l2Bandwidth", p.l2Bandwidth);
  else if (!(p.l2Bandwidth >= 0) || !std::isfinite(p.l2Bandwidth))
    v.fail("field 'l2Bandwidth' must not be negative, got " + formatDouble(p.l2Bandwidth));
  v.fraction("dramEfficiency", p.dramEfficiency);
  v.positiveReal("atomicsPerCycle", p.atomicsPerCycle);
  v.positive("barrierCycles", p.barrierCycles);
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
  JsonReader reader(json);
  if (!reader.readObject(members, error))
    return false;

  for (size_t i = 0; i < members.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (members[i].key == members[j].key) {
        error = "duplicate field " + quoted(members[i].key);
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
      error = "unknown base profile " + quoted(member.value.text) +
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
      error = "unknown field " + quoted(member.key);
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
        error = "missing field " + quoted(kFields[i].name) +
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

std::string profileToJson(const DeviceProfile &profile) {
  std::string out = "{\n";
  bool first = true;
  for (const Field &field : kFields) {
    if (!first)
      out += ",\n";
    first = false;
    out += "  \"";
    out += field.name;
    out += "\": ";
    std::visit(
        [&](auto member) {
          using T = std::remove_cvref_t<decltype(profile.*member)>;
          const T &value = profile.*member;
          if constexpr (std::is_same_v<T, std::string>)
            out += "\"" + jsonEscape(value) + "\"";
          else if constexpr (std::is_same_v<T, double>)
            out += formatDouble(value);
          else if constexpr (std::is_same_v<T, RegisterAllocation>)
            out += std::string("\"") + registerAllocationName(value) + "\"";
          else if constexpr (std::is_same_v<T, BankRule>)
            out += std::string("\"") + bankRuleName(value) + "\"";
          else if constexpr (std::is_same_v<T, GlobalRule>)
            out += std::string("\"") + globalRuleName(value) + "\"";
          else
            out += std::to_string(value);
        },
        field.member);
  }
  out += "\n}\n";
  return out;
}

std::string profileSummary(const DeviceProfile &p) {
  char line[512];
  std::snprintf(line, sizeof line,
                "%-6s %-28s cc %d.%d, %3d SMs, %4d threads/SM, %2d blocks/SM, %5d regs/SM, "
                "%s shared/SM (%s/block), %s, PCIe %d.0 x%d",
                p.name.c_str(), p.marketingName.c_str(), p.ccMajor, p.ccMinor, p.smCount,
                p.maxThreadsPerSM, p.maxBlocksPerSM, p.registersPerSM,
                formatBytes(p.sharedPerSM).c_str(), formatBytes(p.sharedPerBlockOptIn).c_str(),
                formatBytes(p.memoryBytes).c_str(), p.pcieGeneration, p.pcieLanes);
  return line;
}

double transferSeconds(const DeviceProfile &profile, uint64_t bytes, bool pinned) {
  double efficiency = pinned ? profile.pinnedEfficiency : profile.pageableEfficiency;
  return profile.transferLatencyUs * 1e-6 + double(bytes) / (profile.pcieBandwidth * efficiency);
}

} // namespace kern::runtime
