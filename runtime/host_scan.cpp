// The scanf family's formatted input (scanf, fscanf, sscanf): glibc's conversions %d %i %u %o
// %x %X %p %f %e %g %a (and upper case) %s %c %[set] %n %%, with '*', field widths and the
// length modifiers hh h l ll j z t L. Every store goes through a checked host pointer.
#include "runtime/runtime.h"

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <string>

namespace kern::runtime {

namespace {

class Scanner {
public:
  Scanner(Runtime &rt, const char *function, ScanSource &src, int32_t nargs, const uint64_t *args)
      : rt_(rt), function_(function), src_(src), nargs_(nargs), args_(args) {}

  /// One conversion; false when the program passed a bad argument (reported).
  bool ok = true;
  int32_t assigned = 0;
  bool inputFailure = false;
  bool matchFailure = false;

  void run(const char *f) {
    while (*f && ok && !inputFailure && !matchFailure) {
      if (std::isspace(static_cast<unsigned char>(*f))) {
        skipSpace();
        while (std::isspace(static_cast<unsigned char>(*f)))
          ++f;
        continue;
      }
      if (*f != '%' || f[1] == '%') {
        if (*f == '%') {
          ++f;
          skipSpace();
        }
        const int c = src_.get();
        if (c == -1) {
          inputFailure = true;
        } else if (c != static_cast<unsigned char>(*f)) {
          src_.unget(c);
          matchFailure = true;
        }
        ++f;
        continue;
      }
      f = conversion(f + 1);
    }
  }

private:
  Runtime &rt_;
  const char *function_;
  ScanSource &src_;
  int32_t nargs_;
  const uint64_t *args_;
  int32_t next_ = 0;
  int64_t width_ = 0; // characters the field may still take

  int skipSpace() {
    int c;
    while ((c = src_.get()) != -1 && std::isspace(c)) {
    }
    src_.unget(c);
    return c;
  }

  // The field's next character, or -1 at its width or the input's end.
  int take() {
    if (width_ <= 0)
      return -1;
    const int c = src_.get();
    if (c != -1)
      --width_;
    return c;
  }
  void give(int c) {
    if (c != -1) {
      src_.unget(c);
      ++width_;
    }
  }

  void *target(uint64_t bytes) {
    if (next_ >= nargs_) {
      rt_.hostLibraryError(std::string(function_) +
                           ": the format has more conversions than there are arguments");
      ok = false;
      return nullptr;
    }
    void *p = reinterpret_cast<void *>(args_[next_]);
    const std::string what =
        "argument " + std::to_string(next_ + (std::strcmp(function_, "scanf") == 0 ? 2 : 3));
    ++next_;
    if (!rt_.checkHostRange(function_, what.c_str(), p, bytes)) {
      ok = false;
      return nullptr;
    }
    return p;
  }

  template <typename T> void store(T v) {
    if (void *p = target(sizeof v)) {
      std::memcpy(p, &v, sizeof v);
      ++assigned;
    }
  }

  void storeInt(const std::string &len, uint64_t v) {
    if (len == "hh")
      store(static_cast<uint8_t>(v));
    else if (len == "h")
      store(static_cast<uint16_t>(v));
    else if (len.empty())
      store(static_cast<uint32_t>(v));
    else
      store(v);
  }

  bool integer(int base, std::string &text) {
    int c = take();
    if (c == '+' || c == '-') {
      text += static_cast<char>(c);
      c = take();
    }
    if ((base == 0 || base == 16) && c == '0') {
      text += '0';
      c = take();
      if (c == 'x' || c == 'X') {
        text += static_cast<char>(c);
        base = 16;
        c = take();
      } else if (base == 0) {
        base = 8;
      }
    }
    if (base == 0)
      base = 10;
    auto digit = [&](int ch) {
      if (ch == -1)
        return false;
      if (base == 16)
        return std::isxdigit(ch) != 0;
      return ch >= '0' && ch < '0' + base;
    };
    while (digit(c)) {
      text += static_cast<char>(c);
      c = take();
    }
    give(c);
    return text.find_first_of("0123456789abcdefABCDEF") != std::string::npos;
  }

  bool floating(std::string &text) {
    int c = take();
    if (c == '+' || c == '-') {
      text += static_cast<char>(c);
      c = take();
    }
    if (c == 'i' || c == 'I' || c == 'n' || c == 'N') { // inf, infinity, nan
      while (c != -1 && std::isalpha(c)) {
        text += static_cast<char>(c);
        c = take();
      }
      give(c);
      return std::strtod(text.c_str(), nullptr) != 0 ||
             text.find_first_of("nN") != std::string::npos;
    }
    bool digits = false;
    while (c != -1 && std::isdigit(c)) {
      text += static_cast<char>(c);
      digits = true;
      c = take();
    }
    if (c == '.') {
      text += '.';
      c = take();
      while (c != -1 && std::isdigit(c)) {
        text += static_cast<char>(c);
        digits = true;
        c = take();
      }
    }
    if (digits && (c == 'e' || c == 'E')) {
      text += static_cast<char>(c);
      c = take();
      if (c == '+' || c == '-') {
        text += static_cast<char>(c);
        c = take();
      }
      while (c != -1 && std::isdigit(c)) {
        text += static_cast<char>(c);
        c = take();
      }
    }
    give(c);
    return digits;
  }

  const char *conversion(const char *f) {
    const bool suppress = *f == '*';
    if (suppress)
      ++f;
    width_ = 0;
    bool widthGiven = false;
    while (std::isdigit(static_cast<unsigned char>(*f))) {
      width_ = width_ * 10 + (*f++ - '0');
      widthGiven = true;
    }
    std::string len;
    while (*f && std::strchr("hljztLq", *f))
      len += *f++;
    const char conv = *f;
    if (!conv) {
      matchFailure = true;
      return f;
    }
    ++f;
    if (!widthGiven || width_ == 0)
      width_ = conv == 'c' ? 1 : INT64_MAX;
    if (conv != 'c' && conv != '[' && conv != 'n' && skipSpace() == -1) {
      inputFailure = true;
      return f;
    }
    std::string text;
    switch (conv) {
    case 'd':
    case 'i':
    case 'u':
    case 'o':
    case 'x':
    case 'X':
    case 'p': {
      const int base = conv == 'd' || conv == 'u' ? 10 : conv == 'i' ? 0 : conv == 'o' ? 8 : 16;
      if (!integer(base, text)) {
        matchFailure = true;
        break;
      }
      const uint64_t v = conv == 'd' || conv == 'i'
                             ? static_cast<uint64_t>(std::strtoll(text.c_str(), nullptr, base))
                             : std::strtoull(text.c_str(), nullptr, base);
      if (!suppress)
        conv == 'p' ? store(v) : storeInt(len, v);
      break;
    }
    case 'f':
    case 'F':
    case 'e':
    case 'E':
    case 'g':
    case 'G':
    case 'a':
    case 'A':
      if (!floating(text)) {
        matchFailure = true;
        break;
      }
      if (suppress)
        break;
      if (len == "l")
        store(std::strtod(text.c_str(), nullptr));
      else if (len == "L")
        store(std::strtold(text.c_str(), nullptr));
      else
        store(std::strtof(text.c_str(), nullptr));
      break;
    case 's':
    case 'c':
    case '[': {
      bool negate = false;
      std::string set;
      if (conv == '[') {
        if (*f == '^') {
          negate = true;
          ++f;
        }
        if (*f == ']')
          set += *f++;
        while (*f && *f != ']')
          set += *f++;
        if (*f == ']')
          ++f;
      }
      auto accepts = [&](int c) {
        if (conv == 's')
          return !std::isspace(c);
        if (conv == 'c')
          return true;
        bool in = false;
        for (size_t i = 0; i < set.size(); ++i) {
          if (i + 2 < set.size() && set[i + 1] == '-') { // a range a-z
            in |= c >= static_cast<unsigned char>(set[i]) &&
                  c <= static_cast<unsigned char>(set[i + 2]);
            i += 2;
          } else {
            in |= c == static_cast<unsigned char>(set[i]);
          }
        }
        return in != negate;
      };
      int c;
      while ((c = take()) != -1 && accepts(c))
        text += static_cast<char>(c);
      if (conv != 'c')
        give(c);
      if (text.empty()) {
        (c == -1 ? inputFailure : matchFailure) = true;
        break;
      }
      if (conv == 'c' && width_ > 0) { // the input ended inside the field
        inputFailure = true;
        break;
      }
      if (suppress)
        break;
      const uint64_t bytes = text.size() + (conv == 'c' ? 0 : 1);
      if (void *p = target(bytes)) {
        std::memcpy(p, text.c_str(), bytes);
        ++assigned;
      }
      break;
    }
    case 'n':
      if (!suppress) {
        const int32_t before = assigned;
        storeInt(len, src_.count);
        assigned = before; // %n is not an assignment that scanf counts
      }
      break;
    default:
      matchFailure = true; // an unknown conversion ends the scan, as glibc's does
      break;
    }
    return f;
  }
};

} // namespace

bool scanFormat(Runtime &rt, const char *function, ScanSource &src, const char *fmt, int32_t nargs,
                const uint64_t *args, int32_t &result) {
  Scanner s(rt, function, src, nargs, args);
  s.run(fmt);
  if (!s.ok)
    return false;
  result = s.inputFailure && s.assigned == 0 ? -1 : s.assigned;
  return true;
}

} // namespace kern::runtime
