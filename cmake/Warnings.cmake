# SPDX-License-Identifier: Apache-2.0
# Warnings live on a private interface target so consumers never inherit them.
add_library(dpadmm_warnings INTERFACE)
if(DPADMM_TOP_LEVEL)
  target_compile_options(dpadmm_warnings INTERFACE
    $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra -Wpedantic -Wshadow>)
endif()
