// The host C library's streams and files (stdio.h), and its file descriptors (fcntl.h's open,
// unistd.h's read, write, close, lseek). FILE* values are handles (host_state.h) that every
// function validates, file descriptors numbers of the program's own table; what host code
// writes to stdout and stderr goes through the runtime's output (Options::out, err), in order
// with printf. Files are opened only where RuntimeOptions::allowFiles lets the program, and in a
// sandboxed run only beneath its directories (host_paths.cpp): otherwise fopen and open fail
// with EACCES and a note.
#include "runtime/runtime.h"

#include "runtime/errors.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

using kern::runtime::HostFd;
using kern::runtime::HostFile;
using kern::runtime::Runtime;

namespace {

[[noreturn]] void fail(KernHostCtx *ctx) {
  Runtime::unwind(ctx, kern::runtime::kHostFaultExitCode);
}

enum class Stream { Out, Err, In, File };

struct Resolved {
  Stream kind = Stream::File;
  std::FILE *fp = nullptr; // stdin (where allowed) or the file
};

std::string handleText(uint64_t h) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%#llx", static_cast<unsigned long long>(h));
  return buf;
}

// The message for a FILE* that is not an open stream, or empty.
std::string badHandle(KernHostCtx *ctx, uint64_t h) {
  auto &files = ctx->rt->hostLibrary().files;
  if (h == 0)
    return "the stream is a null FILE* (did fopen fail?)";
  if (h >= kern::runtime::kFirstFileHandle && h - kern::runtime::kFirstFileHandle < files.size()) {
    const HostFile &f = files[h - kern::runtime::kFirstFileHandle];
    if (!f.fp)
      return "the FILE* " + handleText(h) + " (\"" + f.name + "\") was already closed by fclose";
    return {};
  }
  if (h == kern::runtime::kStdoutHandle || h == kern::runtime::kStderrHandle ||
      h == kern::runtime::kStdinHandle)
    return {};
  return handleText(h) + " is not a FILE* (fopen did not return it)";
}

bool checkHandle(KernHostCtx *ctx, const char *function, uint64_t h) {
  const std::string why = badHandle(ctx, h);
  if (why.empty())
    return true;
  ctx->rt->hostLibraryError(std::string(function) + ": " + why);
  return false;
}

/// The stream of handle `f`; a bad handle is reported for `function` and ends the program.
Resolved resolve(KernHostCtx *ctx, const char *function, void *f) {
  const auto h = reinterpret_cast<uint64_t>(f);
  if (!checkHandle(ctx, function, h))
    fail(ctx);
  if (h == kern::runtime::kStdoutHandle)
    return {Stream::Out, nullptr};
  if (h == kern::runtime::kStderrHandle)
    return {Stream::Err, nullptr};
  if (h == kern::runtime::kStdinHandle) // the process's stdin, where the program may read
    return {Stream::In, ctx->rt->allowFiles() ? stdin : nullptr};
  return {Stream::File, ctx->rt->hostLibrary().files[h - kern::runtime::kFirstFileHandle].fp};
}

uint64_t stringArg(KernHostCtx *ctx, const char *function, const char *what, const char *s) {
  uint64_t len = 0;
  if (!ctx->rt->checkHostString(function, what, s, len))
    fail(ctx);
  return len;
}

/// Writes `n` bytes to a resolved stream; the count written.
uint64_t put(KernHostCtx *ctx, const Resolved &r, const void *p, uint64_t n) {
  if (r.kind == Stream::Out || r.kind == Stream::Err) {
    ctx->rt->write(r.kind == Stream::Out ? 1 : 2,
                   std::string_view(static_cast<const char *>(p), n));
    return n;
  }
  if (!r.fp) // stdin
    return 0;
  return std::fwrite(p, 1, n, r.fp);
}

// Whether the program may touch the file system (to create, write or remove `name` if
// `write`): not with --no-files, and in a sandboxed run only beneath its directories; if not,
// a note and errno EACCES.
bool mayUseFiles(KernHostCtx *ctx, const char *function, const char *name, bool write) {
  if (ctx->rt->allowFiles())
    return ctx->rt->sandboxAllows(function, name, write);
  auto &lib = ctx->rt->hostLibrary();
  lib.err = EACCES;
  if (!lib.deniedNoted) {
    lib.deniedNoted = true;
    ctx->rt->note(std::string("kern: file access is disabled (--no-files): ") + function + "(\"" +
                  name + "\")\n");
  }
  return false;
}

/// The program's file descriptors, 0, 1 and 2 open from the first use.
std::vector<HostFd> &descriptors(KernHostCtx *ctx) {
  auto &fds = ctx->rt->hostLibrary().fds;
  if (fds.empty())
    fds.assign(3, HostFd{true, -1});
  return fds;
}

/// sizeof(struct stat) of x86-64 Linux, as <sys/stat.h> (frontend/headers/posix/sys/stat.h) lays
/// it out.
constexpr uint64_t kStatBytes = 144;

/// Writes `st` into the program's struct stat, field by field at x86-64 Linux's offsets.
void fillStat(const struct stat &st, void *buf) {
  auto *out = static_cast<unsigned char *>(buf);
  std::memset(out, 0, kStatBytes);
  auto put64 = [&](size_t at, uint64_t v) { std::memcpy(out + at, &v, 8); };
  auto put32 = [&](size_t at, uint32_t v) { std::memcpy(out + at, &v, 4); };
  put64(0, st.st_dev);
  put64(8, st.st_ino);
  put64(16, st.st_nlink);
  put32(24, st.st_mode);
  put32(28, st.st_uid);
  put32(32, st.st_gid);
  put64(40, st.st_rdev);
  put64(48, static_cast<uint64_t>(st.st_size));
  put64(56, static_cast<uint64_t>(st.st_blksize));
  put64(64, static_cast<uint64_t>(st.st_blocks));
  put64(72, static_cast<uint64_t>(st.st_atim.tv_sec));
  put64(80, static_cast<uint64_t>(st.st_atim.tv_nsec));
  put64(88, static_cast<uint64_t>(st.st_mtim.tv_sec));
  put64(96, static_cast<uint64_t>(st.st_mtim.tv_nsec));
  put64(104, static_cast<uint64_t>(st.st_ctim.tv_sec));
  put64(112, static_cast<uint64_t>(st.st_ctim.tv_nsec));
}

/// -1 with errno `e`: how the descriptor functions fail.
int32_t failWith(KernHostCtx *ctx, int e) {
  ctx->rt->hostLibrary().err = e;
  return -1;
}

} // namespace

void kern::runtime::HostLibraryState::closeDescriptors() {
  for (HostFd &d : fds)
    if (d.os >= 0)
      ::close(d.os);
  fds.clear();
}

extern "C" {

int32_t kern_rt_fprintf(KernHostCtx *ctx, void *stream, const char *fmt, int32_t nargs,
                        const uint64_t *args) {
  const Resolved r = resolve(ctx, "fprintf", stream);
  stringArg(ctx, "fprintf", "format", fmt);
  std::string text;
  kern::runtime::formatPrintf(text, fmt, nargs, args, ctx->rt->hostFormatOptions());
  if (r.kind == Stream::In || (r.kind == Stream::File && !r.fp))
    return -1;
  return put(ctx, r, text.data(), text.size()) == text.size() ? static_cast<int32_t>(text.size())
                                                              : -1;
}

void *kern_rt_fopen(KernHostCtx *ctx, const char *name, const char *mode) {
  stringArg(ctx, "fopen", "file name", name);
  const uint64_t modeLen = stringArg(ctx, "fopen", "mode", mode);
  if (modeLen == 0 || !std::strchr("rwa", mode[0]) || std::strspn(mode + 1, "+bx") != modeLen - 1) {
    ctx->rt->hostLibrary().err = EINVAL;
    return nullptr;
  }
  if (!mayUseFiles(ctx, "fopen", name, mode[0] != 'r' || std::strchr(mode, '+')))
    return nullptr;
  std::FILE *fp = std::fopen(name, mode);
  auto &lib = ctx->rt->hostLibrary();
  if (!fp) {
    lib.err = errno;
    return nullptr;
  }
  lib.files.push_back({fp, name});
  return reinterpret_cast<void *>(kern::runtime::kFirstFileHandle + lib.files.size() - 1);
}

int32_t kern_rt_fclose(KernHostCtx *ctx, void *f) {
  const Resolved r = resolve(ctx, "fclose", f);
  if (r.kind != Stream::File)
    return 0; // the standard streams stay usable: kern's output is not closed
  HostFile &file =
      ctx->rt->hostLibrary().files[reinterpret_cast<uint64_t>(f) - kern::runtime::kFirstFileHandle];
  const int rc = std::fclose(file.fp);
  file.fp = nullptr;
  return rc == 0 ? 0 : -1;
}

int32_t kern_rt_fflush(KernHostCtx *ctx, void *f) {
  if (!f) { // every open file
    for (HostFile &file : ctx->rt->hostLibrary().files)
      if (file.fp)
        std::fflush(file.fp);
    std::fflush(stdout);
    return 0;
  }
  const Resolved r = resolve(ctx, "fflush", f);
  if (r.kind == Stream::File)
    return std::fflush(r.fp) == 0 ? 0 : -1;
  // Output to stdout and stderr reaches its sink as it is written; where the sink is the
  // process's own stdout (a pipe buffers it), it goes out now, as a native fflush sends it.
  std::fflush(stdout);
  return 0;
}

uint64_t kern_rt_fread(KernHostCtx *ctx, void *p, uint64_t size, uint64_t n, void *f) {
  const Resolved r = resolve(ctx, "fread", f);
  if (size == 0 || n == 0)
    return 0;
  if (n > UINT64_MAX / size) {
    ctx->rt->hostLibrary().err = EOVERFLOW;
    return 0;
  }
  if (!ctx->rt->checkHostRange("fread", "destination", p, size * n))
    fail(ctx);
  if (!r.fp) // stdout, stderr, or stdin where the program may not read
    return 0;
  return std::fread(p, size, n, r.fp);
}

uint64_t kern_rt_fwrite(KernHostCtx *ctx, const void *p, uint64_t size, uint64_t n, void *f) {
  const Resolved r = resolve(ctx, "fwrite", f);
  if (size == 0 || n == 0)
    return 0;
  if (n > UINT64_MAX / size) {
    ctx->rt->hostLibrary().err = EOVERFLOW;
    return 0;
  }
  if (!ctx->rt->checkHostRange("fwrite", "source", p, size * n))
    fail(ctx);
  return put(ctx, r, p, size * n) / size;
}

char *kern_rt_fgets(KernHostCtx *ctx, char *s, int32_t n, void *f) {
  const Resolved r = resolve(ctx, "fgets", f);
  if (n <= 0)
    return nullptr;
  if (!ctx->rt->checkHostRange("fgets", "buffer", s, static_cast<uint64_t>(n)))
    fail(ctx);
  if (!r.fp)
    return nullptr;
  return std::fgets(s, n, r.fp);
}

int32_t kern_rt_fputs(KernHostCtx *ctx, const char *s, void *f) {
  const Resolved r = resolve(ctx, "fputs", f);
  const uint64_t len = stringArg(ctx, "fputs", "string", s);
  if (r.kind == Stream::In)
    return -1;
  return put(ctx, r, s, len) == len ? 1 : -1;
}

int32_t kern_rt_fputc(KernHostCtx *ctx, int32_t c, void *f) {
  const Resolved r = resolve(ctx, "fputc", f);
  const char ch = static_cast<char>(c);
  if (r.kind == Stream::In)
    return -1;
  return put(ctx, r, &ch, 1) == 1 ? static_cast<unsigned char>(ch) : -1;
}

int32_t kern_rt_putc(KernHostCtx *ctx, int32_t c, void *f) { return kern_rt_fputc(ctx, c, f); }

int32_t kern_rt_fgetc(KernHostCtx *ctx, void *f) {
  const Resolved r = resolve(ctx, "fgetc", f);
  return r.fp ? std::fgetc(r.fp) : -1;
}

int32_t kern_rt_getc(KernHostCtx *ctx, void *f) { return kern_rt_fgetc(ctx, f); }

int32_t kern_rt_ungetc(KernHostCtx *ctx, int32_t c, void *f) {
  const Resolved r = resolve(ctx, "ungetc", f);
  return r.fp && c != EOF ? std::ungetc(c, r.fp) : EOF;
}

int32_t kern_rt_fileno(KernHostCtx *ctx, void *f) {
  const Resolved r = resolve(ctx, "fileno", f);
  const auto h = reinterpret_cast<uint64_t>(f);
  switch (r.kind) {
  case Stream::In:
    return 0;
  case Stream::Out:
    return 1;
  case Stream::Err:
    return 2;
  default:
    return static_cast<int32_t>(3 + (h - kern::runtime::kFirstFileHandle));
  }
}

int32_t kern_rt_isatty(KernHostCtx *ctx, int32_t) {
  ctx->rt->hostLibrary().err = ENOTTY;
  return 0;
}

int32_t kern_rt_getchar(KernHostCtx *ctx) {
  return kern_rt_fgetc(ctx, reinterpret_cast<void *>(kern::runtime::kStdinHandle));
}

int32_t kern_rt_fseek(KernHostCtx *ctx, void *f, int64_t offset, int32_t whence) {
  const Resolved r = resolve(ctx, "fseek", f);
  if (r.kind != Stream::File) {
    ctx->rt->hostLibrary().err = ESPIPE;
    return -1;
  }
  if (whence < 0 || whence > 2) {
    ctx->rt->hostLibrary().err = EINVAL;
    return -1;
  }
  if (std::fseek(r.fp, offset, whence) != 0) {
    ctx->rt->hostLibrary().err = errno;
    return -1;
  }
  return 0;
}

int64_t kern_rt_ftell(KernHostCtx *ctx, void *f) {
  const Resolved r = resolve(ctx, "ftell", f);
  if (r.kind != Stream::File) {
    ctx->rt->hostLibrary().err = ESPIPE;
    return -1;
  }
  return std::ftell(r.fp);
}

void kern_rt_rewind(KernHostCtx *ctx, void *f) {
  const Resolved r = resolve(ctx, "rewind", f);
  if (r.kind == Stream::File)
    std::rewind(r.fp);
}

int32_t kern_rt_feof(KernHostCtx *ctx, void *f) {
  const Resolved r = resolve(ctx, "feof", f);
  if (r.kind == Stream::In && !r.fp)
    return 1; // stdin where the program may not read: at its end
  return r.fp ? (std::feof(r.fp) != 0) : 0;
}

int32_t kern_rt_ferror(KernHostCtx *ctx, void *f) {
  const Resolved r = resolve(ctx, "ferror", f);
  return r.fp ? (std::ferror(r.fp) != 0) : 0;
}

void kern_rt_clearerr(KernHostCtx *ctx, void *f) {
  const Resolved r = resolve(ctx, "clearerr", f);
  if (r.fp)
    std::clearerr(r.fp);
}

int32_t kern_rt_remove(KernHostCtx *ctx, const char *name) {
  stringArg(ctx, "remove", "file name", name);
  if (!mayUseFiles(ctx, "remove", name, true))
    return -1;
  if (std::remove(name) != 0) {
    ctx->rt->hostLibrary().err = errno;
    return -1;
  }
  return 0;
}

void kern_rt_perror(KernHostCtx *ctx, const char *s) {
  if (s)
    stringArg(ctx, "perror", "string", s);
  std::string text = s && *s ? std::string(s) + ": " : std::string();
  text += std::strerror(ctx->rt->hostLibrary().err);
  text += "\n";
  ctx->rt->write(2, text);
}

// ---- file descriptors -------------------------------------------------------------------------

int32_t kern_rt___kern_open(KernHostCtx *ctx, const char *path, int32_t flags, uint32_t mode) {
  stringArg(ctx, "open", "path", path);
  // The flags of <fcntl.h> that a program may give; others (O_PATH, O_TMPFILE, O_DIRECT...) and
  // an access mode that is none of the three are EINVAL.
  constexpr int32_t kAllowed = O_ACCMODE | O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | O_APPEND |
                               O_NONBLOCK | O_DSYNC | O_SYNC | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
  if ((flags & ~kAllowed) || (flags & O_ACCMODE) == O_ACCMODE)
    return failWith(ctx, EINVAL);
  const bool writes = (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC | O_APPEND));
  if (!mayUseFiles(ctx, "open", path, writes))
    return -1;
  const int os = ::open(path, flags | O_CLOEXEC, static_cast<mode_t>(mode));
  if (os < 0)
    return failWith(ctx, errno);
  std::vector<HostFd> &fds = descriptors(ctx);
  size_t fd = 0;
  while (fd < fds.size() && fds[fd].open)
    ++fd;
  if (fd == fds.size())
    fds.emplace_back();
  fds[fd] = HostFd{true, os};
  return static_cast<int32_t>(fd);
}

int32_t kern_rt___kern_close(KernHostCtx *ctx, int32_t fd) {
  if (!ctx->rt->hostLibrary().isOpenFd(fd))
    return failWith(ctx, EBADF);
  HostFd &d = descriptors(ctx)[fd];
  d.open = false;
  if (d.os < 0) // stdin, stdout, stderr: closed for the program; kern's output stays
    return 0;
  const int rc = ::close(d.os);
  d.os = -1;
  return rc == 0 ? 0 : failWith(ctx, errno);
}

int64_t kern_rt___kern_read(KernHostCtx *ctx, int32_t fd, void *buf, uint64_t n) {
  if (!ctx->rt->hostLibrary().isOpenFd(fd))
    return failWith(ctx, EBADF);
  if (!ctx->rt->checkHostRange("read", "buffer", buf, n))
    fail(ctx);
  int os = descriptors(ctx)[fd].os;
  if (os < 0) {
    if (fd != 0) // stdout and stderr are not for reading
      return failWith(ctx, EBADF);
    if (!ctx->rt->allowFiles()) // stdin where the program may not read: at its end
      return 0;
    os = STDIN_FILENO;
  }
  const ssize_t r = ::read(os, buf, n);
  return r < 0 ? failWith(ctx, errno) : r;
}

int64_t kern_rt___kern_write(KernHostCtx *ctx, int32_t fd, const void *buf, uint64_t n) {
  if (!ctx->rt->hostLibrary().isOpenFd(fd))
    return failWith(ctx, EBADF);
  if (!ctx->rt->checkHostRange("write", "buffer", buf, n))
    fail(ctx);
  const int os = descriptors(ctx)[fd].os;
  if (os < 0) {
    if (fd == 0)
      return failWith(ctx, EBADF);
    ctx->rt->write(fd, std::string_view(static_cast<const char *>(buf), n));
    return static_cast<int64_t>(n);
  }
  const ssize_t r = ::write(os, buf, n);
  return r < 0 ? failWith(ctx, errno) : r;
}

int64_t kern_rt___kern_lseek(KernHostCtx *ctx, int32_t fd, int64_t offset, int32_t whence) {
  if (!ctx->rt->hostLibrary().isOpenFd(fd))
    return failWith(ctx, EBADF);
  const int os = descriptors(ctx)[fd].os;
  if (os < 0)
    return failWith(ctx, ESPIPE);
  const off_t r = ::lseek(os, offset, whence);
  return r < 0 ? failWith(ctx, errno) : r;
}

int32_t kern_rt___kern_ftruncate(KernHostCtx *ctx, int32_t fd, int64_t length) {
  if (!ctx->rt->hostLibrary().isOpenFd(fd))
    return failWith(ctx, EBADF);
  const int os = descriptors(ctx)[fd].os;
  if (os < 0)
    return failWith(ctx, EINVAL);
  return ::ftruncate(os, length) == 0 ? 0 : failWith(ctx, errno);
}

int32_t kern_rt___kern_stat(KernHostCtx *ctx, const char *path, void *buf) {
  stringArg(ctx, "stat", "path", path);
  if (!ctx->rt->checkHostRange("stat", "buffer", buf, kStatBytes))
    fail(ctx);
  if (!mayUseFiles(ctx, "stat", path, false))
    return -1;
  struct stat st;
  if (::stat(path, &st) != 0)
    return failWith(ctx, errno);
  fillStat(st, buf);
  return 0;
}

int32_t kern_rt___kern_fstat(KernHostCtx *ctx, int32_t fd, void *buf) {
  if (!ctx->rt->hostLibrary().isOpenFd(fd))
    return failWith(ctx, EBADF);
  if (!ctx->rt->checkHostRange("fstat", "buffer", buf, kStatBytes))
    fail(ctx);
  const int os = descriptors(ctx)[fd].os;
  struct stat st;
  // stdin, stdout and stderr are the runtime's: a character device, as a terminal is.
  if (os < 0) {
    std::memset(&st, 0, sizeof st);
    st.st_mode = S_IFCHR | 0620;
  } else if (::fstat(os, &st) != 0) {
    return failWith(ctx, errno);
  }
  fillStat(st, buf);
  return 0;
}

int32_t kern_rt___kern_mkdir(KernHostCtx *ctx, const char *path, uint32_t mode) {
  stringArg(ctx, "mkdir", "path", path);
  if (!mayUseFiles(ctx, "mkdir", path, true))
    return -1;
  return ::mkdir(path, static_cast<mode_t>(mode)) == 0 ? 0 : failWith(ctx, errno);
}

const char *kern_rt___kern_program_name(KernHostCtx *ctx) {
  return ctx->rt->handOutString(ctx->rt->hostLibrary().programName.c_str());
}

} // extern "C"

extern "C" int32_t kern_rt_scanf(KernHostCtx *ctx, void *stream, const char *text, const char *fmt,
                                 int32_t nargs, const uint64_t *args) {
  const char *function =
      stream
          ? (reinterpret_cast<uint64_t>(stream) == kern::runtime::kStdinHandle ? "scanf" : "fscanf")
          : "sscanf";
  kern::runtime::ScanSource src;
  if (stream) {
    const Resolved r = resolve(ctx, function, stream);
    src.fp = r.fp; // null for stdout and stderr: nothing to read
  } else {
    stringArg(ctx, function, "input string", text);
    src.text = text;
  }
  stringArg(ctx, function, "format", fmt);
  int32_t result = 0;
  if (!kern::runtime::scanFormat(*ctx->rt, function, src, fmt, nargs, args, result))
    fail(ctx);
  return result;
}
