# SPDX-License-Identifier: Apache-2.0
# The version lives in one place, the VERSION file at the top of the tree. This file turns it
# into the generated public header dpadmm/version.h (installed with the other headers).
set(DPADMM_GENERATED_INCLUDE_DIR ${PROJECT_BINARY_DIR}/generated/include)
configure_file(${PROJECT_SOURCE_DIR}/cmake/version.h.in
               ${DPADMM_GENERATED_INCLUDE_DIR}/dpadmm/version.h @ONLY)
