// SPDX-License-Identifier: Apache-2.0
// DPADMM_TEST_SANITIZED: defined when the test binary is built with AddressSanitizer or
// ThreadSanitizer (clang's __has_feature, gcc's __SANITIZE_*__), for tests whose premise a
// sanitizer changes (allocation counts, per-node timings).
#pragma once

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define DPADMM_TEST_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define DPADMM_TEST_SANITIZED 1
#endif
