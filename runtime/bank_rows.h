// The busiest bank of one warp's shared access of a word or less a lane: the most distinct
// words any of 32 banks is asked for, the inner loop of the multicast rule
// (counter_rules.cpp) for the data-dependent addresses that no memo can replay (a histogram's
// atomics). With AVX-512 it runs without a loop over the lanes.
#pragma once

#include <cstdint>

namespace kern::runtime {

/// The most distinct 32-bit words any bank has among the active lanes of `mask`, with 32 banks
/// of 4-byte words; `byteOffsets` has 32 entries, those of inactive lanes are ignored. UINT32_MAX
/// where the words span more than the 32 rows of banks that the procedure's window holds (15
/// rows below the first active lane's row, 16 above): the caller then takes the general one.
uint32_t busiestBankOf32(const uint64_t *byteOffsets, uint32_t mask);

/// The same without the vector instructions (what busiestBankOf32 runs on a CPU without
/// AVX-512); for the test that holds the two to one answer.
uint32_t busiestBankOf32Scalar(const uint64_t *byteOffsets, uint32_t mask);

/// Whether busiestBankOf32 takes the AVX-512 path on this CPU.
bool busiestBankOf32Vectorised();

/// `out[l] = addrs[l] - base` for the 32 lanes; with AVX-512, in the vector stores whose sizes
/// busiestBankOf32's loads have (a load that spans several smaller stores waits for them to
/// reach the cache).
void wordOffsets(const uint64_t *addrs, uint64_t base, uint64_t *out);

} // namespace kern::runtime
