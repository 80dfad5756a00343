// KERN_ASAN: 1 when this translation unit is compiled with AddressSanitizer (GCC or clang), and
// then its interface. Code that switches stacks (warp fibers, program threads) announces every
// switch to it (__sanitizer_start_switch_fiber before, __sanitizer_finish_switch_fiber after),
// or it takes the other stack's frames for a stack overflow or use-after-scope and reports
// false positives. Internal to the runtime.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define KERN_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KERN_ASAN 1
#endif
#endif
#ifndef KERN_ASAN
#define KERN_ASAN 0
#endif
#if KERN_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
