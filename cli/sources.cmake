# SPDX-License-Identifier: Apache-2.0
# The dpadmm command's sources besides main.cpp, relative to cli/: one list for the command
# (cli/CMakeLists.txt) and the command-line fuzz harness (tests/fuzz, fuzz_cli), so that a new
# command file cannot be missing from one of them.
set(DPADMM_CLI_SOURCES command_common.cpp spec_flags.cpp run_command.cpp summary_text.cpp
    trace_writer.cpp predict_command.cpp audit_command.cpp sweep_command.cpp run_limits.cpp
    output_files.cpp party_command.cpp)
