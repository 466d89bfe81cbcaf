// SPDX-License-Identifier: Apache-2.0
// Memory given back to the operating system while a set is consumed (internal header; defined
// in preprocessing.cpp): the loaders, the split.
#pragma once

namespace dpadmm::internal {

// Hands the pages lying wholly inside [begin, end) back to the operating system: memory that is
// never read again (a set being consumed) stops counting as resident, although its owner still
// holds it and frees it later. On Linux (madvise MADV_DONTNEED on private memory) those pages
// read as zero afterwards; elsewhere nothing happens. Returns the end of the last page released
// (or `begin`): the next call over the same array starts there.
const char* ReleasePages(const char* begin, const char* end);

// Gives the free pages of the heap back to the system. glibc keeps freed blocks below its
// mmap threshold resident (after the loaders and the centralized optimum's solver: about 1 MB on
// Adult, 1 MB on 140 000 dense rows), and the next phase's arrays would be faulted in beside
// them. Elsewhere nothing happens. No data moves: only pages no allocation holds are released.
void GiveBackFreeHeap();

}  // namespace dpadmm::internal
