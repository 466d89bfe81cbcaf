#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The suite's temp folder (TMPDIR of every test, see tests/CMakeLists.txt):
#   temp_folder_check.sh setup DIR   empties DIR before the first test
#   temp_folder_check.sh check DIR   after the last test: fails, listing them, if files remain
set -u
mode=$1
dir=$2
case "$mode" in
  setup)
    rm -rf "$dir" && mkdir -p "$dir"
    ;;
  check)
    left=$(cd "$dir" && find . -mindepth 1 -maxdepth 2 | sort)
    if [ -n "$left" ]; then
      echo "FAIL: the tests left files in their temp folder $dir:"
      echo "$left" | head -50
      exit 1
    fi
    echo "PASS: the temp folder $dir is empty"
    ;;
  *) echo "usage: temp_folder_check.sh setup|check DIR"; exit 2 ;;
esac
