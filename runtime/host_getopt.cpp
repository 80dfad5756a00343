// getopt and getopt_long (unistd.h, getopt.h) as glibc's behave: options may follow
// non-options (argv is permuted so that the non-options end up last, unless the option string
// starts with '+' or '-'), "--" ends the options, a leading ':' in the option string makes a
// missing argument return ':' silently, long options may be abbreviated to a unique prefix.
// Messages go to the program's stderr with glibc's wording. Not supported: the
// POSIXLY_CORRECT environment variable and the "W;" option string extension.
#include "runtime/runtime.h"

#include "runtime/errors.h"

#include <algorithm>
#include <cstring>
#include <string>

using kern::runtime::HostLibraryState;
using kern::runtime::Runtime;

namespace {

// struct option as host code lays it out (getopt.h on x86-64).
struct LongOption {
  const char *name;
  int32_t hasArg;
  int32_t *flag;
  int32_t val;
};
static_assert(sizeof(LongOption) == 32);

class Getopt {
public:
  Getopt(KernHostCtx *ctx, int32_t argc, char **argv, const char *optstring,
         const LongOption *longopts, int32_t *index)
      : ctx_(ctx), s_(ctx->rt->hostLibrary()), argc_(argc), argv_(argv), longopts_(longopts),
        index_(index) {
    if (*optstring == '+' || *optstring == '-') {
      order_ = *optstring == '+' ? Order::Require : Order::ReturnInOrder;
      ++optstring;
    }
    colon_ = *optstring == ':';
    opts_ = optstring;
  }

  int32_t next() {
    s_.optarg = nullptr;
    if (s_.optind <= 0) { // optind = 0 restarts the scan, as glibc allows
      s_.optind = 1;
      s_.nextChar = nullptr;
    }
    if (s_.optind == 1 && !s_.nextChar)
      s_.firstNonOpt = s_.lastNonOpt = 1;
    if (!s_.nextChar || !*s_.nextChar) {
      if (s_.lastNonOpt > s_.optind)
        s_.lastNonOpt = s_.optind;
      if (s_.firstNonOpt > s_.optind)
        s_.firstNonOpt = s_.optind;
      if (order_ == Order::Permute) {
        if (s_.firstNonOpt != s_.lastNonOpt && s_.lastNonOpt != s_.optind)
          exchange();
        else if (s_.lastNonOpt != s_.optind)
          s_.firstNonOpt = s_.optind;
        while (s_.optind < argc_ && nonOption(argv_[s_.optind]))
          ++s_.optind;
        s_.lastNonOpt = s_.optind;
      }
      if (s_.optind != argc_ && std::strcmp(argv_[s_.optind], "--") == 0) {
        ++s_.optind;
        if (s_.firstNonOpt != s_.lastNonOpt && s_.lastNonOpt != s_.optind)
          exchange();
        else if (s_.firstNonOpt == s_.lastNonOpt)
          s_.firstNonOpt = s_.optind;
        s_.lastNonOpt = argc_;
        s_.optind = argc_;
      }
      if (s_.optind >= argc_) {
        if (s_.firstNonOpt != s_.lastNonOpt)
          s_.optind = s_.firstNonOpt;
        return -1;
      }
      if (nonOption(argv_[s_.optind])) {
        if (order_ == Order::Require)
          return -1;
        s_.optarg = argv_[s_.optind++];
        return 1;
      }
      if (longopts_ && argv_[s_.optind][1] == '-') {
        s_.nextChar = argv_[s_.optind] + 2;
        return longOption();
      }
      s_.nextChar = argv_[s_.optind] + 1;
    }
    return shortOption();
  }

private:
  enum class Order { Permute, Require, ReturnInOrder };
  KernHostCtx *ctx_;
  HostLibraryState &s_;
  int32_t argc_;
  char **argv_;
  const LongOption *longopts_;
  int32_t *index_;
  const char *opts_ = "";
  Order order_ = Order::Permute;
  bool colon_ = false;

  static bool nonOption(const char *a) { return a[0] != '-' || a[1] == '\0'; }

  void message(const std::string &text) {
    if (s_.opterr && !colon_)
      ctx_->rt->write(2, std::string(argv_[0]) + ": " + text + "\n");
  }

  // Moves the options found after the skipped non-options before them.
  void exchange() {
    std::rotate(argv_ + s_.firstNonOpt, argv_ + s_.lastNonOpt, argv_ + s_.optind);
    s_.firstNonOpt += s_.optind - s_.lastNonOpt;
    s_.lastNonOpt = s_.optind;
  }

  int32_t shortOption() {
    const char c = *s_.nextChar++;
    const char *spec = c == ':' ? nullptr : std::strchr(opts_, c);
    if (*s_.nextChar == '\0')
      ++s_.optind;
    if (!spec || c == '\0') {
      message(std::string("invalid option -- '") + c + "'");
      s_.optopt = static_cast<unsigned char>(c);
      return '?';
    }
    if (spec[1] == ':') {
      if (spec[2] == ':') { // an optional argument: only attached ("-ovalue")
        if (*s_.nextChar) {
          s_.optarg = const_cast<char *>(s_.nextChar);
          ++s_.optind;
        }
      } else if (*s_.nextChar) {
        s_.optarg = const_cast<char *>(s_.nextChar);
        ++s_.optind;
      } else if (s_.optind == argc_) {
        message(std::string("option requires an argument -- '") + c + "'");
        s_.optopt = static_cast<unsigned char>(c);
        s_.nextChar = nullptr;
        return colon_ ? ':' : '?';
      } else {
        s_.optarg = argv_[s_.optind++];
      }
      s_.nextChar = nullptr;
    }
    return static_cast<unsigned char>(c);
  }

  int32_t longOption() {
    const char *name = s_.nextChar;
    const char *eq = std::strchr(name, '=');
    const size_t len = eq ? static_cast<size_t>(eq - name) : std::strlen(name);
    const LongOption *found = nullptr;
    int32_t foundIndex = -1;
    std::vector<const LongOption *> ambiguous;
    for (int32_t i = 0; longopts_[i].name; ++i) {
      const LongOption &o = longopts_[i];
      if (std::strncmp(o.name, name, len) != 0)
        continue;
      if (std::strlen(o.name) == len) { // an exact match wins
        found = &o;
        foundIndex = i;
        ambiguous.clear();
        break;
      }
      if (!found) {
        found = &o;
        foundIndex = i;
      } else if (found->hasArg != o.hasArg || found->flag != o.flag || found->val != o.val) {
        if (ambiguous.empty())
          ambiguous.push_back(found);
        ambiguous.push_back(&o);
      }
    }
    s_.nextChar = nullptr;
    if (!ambiguous.empty()) {
      std::string text =
          std::string("option '--") + std::string(name, len) + "' is ambiguous; possibilities:";
      for (const LongOption *o : ambiguous)
        text += std::string(" '--") + o->name + "'";
      message(text);
      ++s_.optind;
      s_.optopt = 0;
      return '?';
    }
    if (!found) {
      message(std::string("unrecognized option '--") + name + "'");
      ++s_.optind;
      s_.optopt = 0;
      return '?';
    }
    ++s_.optind;
    if (eq) {
      if (found->hasArg == 0) {
        message(std::string("option '--") + found->name + "' doesn't allow an argument");
        s_.optopt = found->val;
        return '?';
      }
      s_.optarg = const_cast<char *>(eq + 1);
    } else if (found->hasArg == 1) {
      if (s_.optind < argc_) {
        s_.optarg = argv_[s_.optind++];
      } else {
        message(std::string("option '--") + found->name + "' requires an argument");
        s_.optopt = found->val;
        return colon_ ? ':' : '?';
      }
    }
    if (index_)
      *index_ = foundIndex;
    if (found->flag) {
      *found->flag = found->val;
      return 0;
    }
    return found->val;
  }
};

// Checks getopt's arguments: argv's pointers and strings, the option string, the long options.
bool checkArguments(KernHostCtx *ctx, const char *function, int32_t argc, char **argv,
                    const char *optstring, const LongOption *longopts, int32_t *index) {
  Runtime &rt = *ctx->rt;
  uint64_t len = 0;
  if (argc < 1) {
    rt.hostLibraryError(std::string(function) + ": argc is " + std::to_string(argc) +
                        " (it counts argv[0], the program's name)");
    return false;
  }
  if (!rt.checkHostRange(function, "argv", argv, sizeof(char *) * static_cast<uint64_t>(argc)) ||
      !rt.checkHostString(function, "option string", optstring, len))
    return false;
  for (int32_t i = 0; i < argc; ++i)
    if (!rt.checkHostString(function, "argument string", argv[i], len))
      return false;
  if (index && !rt.checkHostRange(function, "option index", index, sizeof *index))
    return false;
  // glibc reads the long options only for an argument that is one (`--name`), or for `-W name`
  // when the option string has "W;": a program whose array lacks its terminating entry runs
  // natively as long as it is given no long option, and so it does here.
  bool readsLongOptions = std::strstr(optstring, "W;") != nullptr;
  for (int32_t i = 1; i < argc && !readsLongOptions; ++i)
    readsLongOptions = argv[i][0] == '-' && argv[i][1] == '-' && argv[i][2] != '\0';
  if (longopts && readsLongOptions)
    for (const LongOption *o = longopts;; ++o) {
      if (!rt.checkHostRange(function, "long options", o, sizeof *o))
        return false;
      if (!o->name)
        break;
      if (!rt.checkHostString(function, "long option name", o->name, len) ||
          (o->flag && !rt.checkHostRange(function, "long option flag", o->flag, sizeof(int32_t))))
        return false;
    }
  return true;
}

bool run(KernHostCtx *ctx, const char *function, int32_t argc, char **argv, const char *optstring,
         const void *longopts, int32_t *index, int32_t &result) {
  const auto *lo = static_cast<const LongOption *>(longopts);
  if (!checkArguments(ctx, function, argc, argv, optstring, lo, index))
    return false;
  result = Getopt(ctx, argc, argv, optstring, lo, index).next();
  return true;
}

} // namespace

extern "C" {

int32_t kern_rt_getopt(KernHostCtx *ctx, int32_t argc, char **argv, const char *optstring) {
  int32_t r = -1;
  if (!run(ctx, "getopt", argc, argv, optstring, nullptr, nullptr, r))
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
  return r;
}

int32_t kern_rt_getopt_long(KernHostCtx *ctx, int32_t argc, char **argv, const char *optstring,
                            const void *options, int32_t *index) {
  int32_t r = -1;
  if (!run(ctx, "getopt_long", argc, argv, optstring, options, index, r))
    Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
  return r;
}

// getopt's variables are the runtime's; host code reaches them through these pointers.
char **kern_rt___kern_optarg_location(KernHostCtx *ctx) {
  char **p = &ctx->rt->hostLibrary().optarg;
  return ctx->rt->handOut(p, sizeof *p, "variable optarg", true);
}
int32_t *kern_rt___kern_optind_location(KernHostCtx *ctx) {
  int32_t *p = &ctx->rt->hostLibrary().optind;
  return ctx->rt->handOut(p, sizeof *p, "variable optind", true);
}
int32_t *kern_rt___kern_opterr_location(KernHostCtx *ctx) {
  int32_t *p = &ctx->rt->hostLibrary().opterr;
  return ctx->rt->handOut(p, sizeof *p, "variable opterr", true);
}
int32_t *kern_rt___kern_optopt_location(KernHostCtx *ctx) {
  int32_t *p = &ctx->rt->hostLibrary().optopt;
  return ctx->rt->handOut(p, sizeof *p, "variable optopt", true);
}

} // extern "C"
