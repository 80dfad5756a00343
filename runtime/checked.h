// Checked mode: the shared-memory race detector and the "never written" shadow of device memory.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

struct KernWarpCtx;

namespace kern::runtime {

/// Which bytes of device memory hold data something wrote: one shadow byte per device byte
/// (nonzero: written), reserved like device memory itself (MAP_NORESERVE), so only the pages
/// behind touched device memory cost anything. Byte granularity: a 1-byte store into a word
/// initialises that byte only, and a 4-byte load of the word still reads 3 unwritten bytes.
class InitShadow {
public:
  InitShadow(uint64_t lo, uint64_t bytes);
  ~InitShadow();
  InitShadow(const InitShadow &) = delete;
  InitShadow &operator=(const InitShadow &) = delete;

  bool valid() const { return base_ != nullptr; }
  bool covers(uint64_t addr, uint64_t n) const {
    return base_ && addr >= lo_ && addr - lo_ <= bytes_ && n <= bytes_ - (addr - lo_);
  }
  /// [addr, addr + n) now holds written data (cudaMemcpy, cudaMemset, kernel stores).
  void mark(uint64_t addr, uint64_t n);
  /// [addr, addr + n) holds nothing written (a fresh cudaMalloc).
  void clear(uint64_t addr, uint64_t n);
  /// A device-to-device copy carries the source's state to the destination.
  void copy(uint64_t dst, uint64_t src, uint64_t n);
  uint8_t *at(uint64_t addr) const { return base_ + (addr - lo_); }
  uint64_t lo() const { return lo_; }
  uint64_t bytes() const { return bytes_; }

private:
  uint64_t lo_ = 0, bytes_ = 0;
  uint8_t *base_ = nullptr;
};

enum class RaceKind : uint8_t { ReadAfterWrite, WriteAfterRead, WriteAfterWrite };

/// The first shared-memory race of a block: two accesses by different warps between the same
/// two barriers, or two lanes of one store writing different values to the same byte.
struct RaceRecord {
  uint64_t blockLinear = UINT64_MAX; ///< UINT64_MAX: none
  uint32_t blockIdx[3] = {0, 0, 0};
  RaceKind kind = RaceKind::WriteAfterWrite;
  bool sameInstruction = false; ///< two lanes of one store
  uint32_t firstSite = 0, secondSite = 0;
  uint32_t firstThread[3] = {0, 0, 0}, secondThread[3] = {0, 0, 0};
  uint32_t firstWarp = 0, firstLane = 0, secondWarp = 0, secondLane = 0;
  bool firstAtomic = false, secondAtomic = false;
  uint64_t offset = 0; ///< byte offset in the block's shared memory
};

/// The first read of never-written global memory in a block, or of shared memory that no thread
/// of the block wrote since it started.
struct UninitRecord {
  uint64_t blockLinear = UINT64_MAX; ///< UINT64_MAX: none
  uint32_t blockIdx[3] = {0, 0, 0};
  uint32_t thread[3] = {0, 0, 0};
  uint32_t site = 0;
  uint64_t addr = 0;      ///< the lane's access address
  uint32_t size = 0;      ///< bytes of the access
  uint64_t unwritten = 0; ///< the first unwritten byte
  bool atomic = false;
  bool shared = false; ///< shared memory: addr and unwritten are offsets in the block's
};

/// One byte of a block's shared memory: the last write and up to two reads (by different warps)
/// since the block's last barrier. Stamps number the worker's checked accesses; a stamp at or
/// below the stamp of the last barrier is from an earlier barrier interval, so nothing has to be
/// cleared at a barrier or a new block.
struct SharedCell {
  uint32_t wStamp = 0, rStamp = 0, r2Stamp = 0;
  uint32_t wSite = 0, rSite = 0, r2Site = 0;
  uint16_t wWho = 0, rWho = 0, r2Who = 0; ///< warp << 5 | lane; bit 15 on a write: atomic
  uint16_t pad = 0;
};

/// The cells of a block's shared words, field by field (a warp's lanes on consecutive words are
/// judged with vector operations), with `kPad` cells after the last so that a group of four
/// starting at any word can be loaded whole.
struct SharedWords {
  static constexpr size_t kPad = 8;
  std::vector<uint32_t> wStamp, rStamp, r2Stamp, wSite, rSite, r2Site;
  std::vector<uint32_t> wWho, rWho, r2Who; ///< SharedCell's 16-bit fields, widened

  size_t size() const { return wStamp.size() < kPad ? 0 : wStamp.size() - kPad; }
  /// At least `n` cells; all of them cleared when `clear`.
  void grow(size_t n, bool clear);
  SharedCell get(size_t i) const {
    SharedCell c;
    c.wStamp = wStamp[i], c.rStamp = rStamp[i], c.r2Stamp = r2Stamp[i];
    c.wSite = wSite[i], c.rSite = rSite[i], c.r2Site = r2Site[i];
    c.wWho = static_cast<uint16_t>(wWho[i]), c.rWho = static_cast<uint16_t>(rWho[i]);
    c.r2Who = static_cast<uint16_t>(r2Who[i]);
    return c;
  }
  void set(size_t i, const SharedCell &c) {
    wStamp[i] = c.wStamp, rStamp[i] = c.rStamp, r2Stamp[i] = c.r2Stamp;
    wSite[i] = c.wSite, rSite[i] = c.rSite, r2Site[i] = c.r2Site;
    wWho[i] = c.wWho, rWho[i] = c.rWho, r2Who[i] = c.r2Who;
  }
};

struct CheckedLaunch;

/// One worker's checked-mode state: it runs one block at a time, so this is also the state of
/// the block it runs.
struct CheckedWorker {
  CheckedLaunch *launch = nullptr;
  InitShadow *init = nullptr;
  /// Per 4-byte word of shared memory: its history while it was only accessed whole in this
  /// block (one cell stands for its four bytes).
  SharedWords words;
  /// Per byte of shared memory: the histories of the bytes of split words.
  std::vector<SharedCell> bytes;
  /// Per 4-byte word of shared memory: 0 while the word was only accessed whole in this block,
  /// 1 once part of it was (its bytes then keep their own histories, in `bytes`).
  std::vector<uint8_t> split;
  bool anySplit = false;     ///< some word of `split` is 1
  uint32_t stamp = 0;        ///< the last checked access of this worker
  uint32_t barrierStamp = 0; ///< `stamp` at the block's last barrier (or its start)
  uint32_t blockStamp = 0;   ///< `stamp` at the block's start: older writes are other blocks'
  uint64_t blockLinear = 0;
  uint32_t blockIdx[3] = {0, 0, 0};
  uint32_t blockDim[3] = {1, 1, 1};
  bool checkRaces = true;  ///< false once this launch has a race at or below this block
  bool checkUninit = true; ///< likewise for unwritten reads
  RaceRecord race;         ///< the first race of this worker's lowest racy block
  UninitRecord uninit;
};

/// What the workers of one launch share.
struct CheckedLaunch {
  std::atomic<uint64_t> minRaceBlock{UINT64_MAX};
  std::atomic<uint64_t> minUninitBlock{UINT64_MAX};
};

/// Checked mode of one Runtime: the init shadow for the program's life, worker states reused
/// from launch to launch.
class Checker {
public:
  Checker(uint64_t deviceLo, uint64_t deviceBytes) : init_(deviceLo, deviceBytes) {}
  InitShadow &init() { return init_; }
  /// One CheckedWorker per worker; LaunchConfig::workerChecked points at the returned array.
  CheckedWorker *const *beginLaunch(unsigned workers);
  struct Findings {
    RaceRecord race;     ///< of the lowest block that had one
    UninitRecord uninit; ///< likewise
  };
  Findings endLaunch();

private:
  InitShadow init_;
  CheckedLaunch launch_;
  std::vector<std::unique_ptr<CheckedWorker>> workers_;
  std::vector<CheckedWorker *> pointers_;
};

/// Called by the scheduler when a worker starts block `linear` (`worker`: its CheckedWorker).
void checkedBlockBegin(CheckedWorker *worker, uint64_t linear, const uint32_t blockIdx[3],
                       const uint32_t blockDim[3], uint64_t sharedBytes);
/// Called by the scheduler when every warp of the block has reached a barrier: accesses after
/// it are ordered after every access before it.
void checkedBarrier(CheckedWorker *worker);

/// kern_rt_check_access of a warp of the block that `w` runs (`w` null: not checked).
/// `lanesOnly`: without the paths that judge a warp's lanes together (a run of consecutive
/// global elements, whole words of shared memory), which must come to the same findings and the
/// same state as the lanes one by one; the unit tests compare the two.
void checkAccess(CheckedWorker *w, KernWarpCtx *ctx, uint32_t site, const uint64_t *addrs,
                 uint32_t mask, uint32_t size, uint32_t flags, bool lanesOnly);

} // namespace kern::runtime
