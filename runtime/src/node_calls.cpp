// SPDX-License-Identifier: Apache-2.0
#include "node_calls.h"

#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>

namespace dpadmm::runtime::detail {
namespace {

std::string Where(int node, std::int64_t round) {
  return "node " + std::to_string(node) +
         (round < 0 ? std::string(", set-up") : ", round " + std::to_string(round));
}

}  // namespace

NodeFailure CaughtException(int node, std::int64_t round, const char* method) {
  std::string what;
  try {
    throw;
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
    what = "an exception not derived from std::exception";
  }
  return {node, round, FailureKind::kException,
          Where(node, round) + ": " + method + " threw: " + what};
}

NodeFailure NonFiniteValue(int node, std::int64_t round, const char* what,
                           std::span<const double> v, std::size_t index) {
  char value[32];  // "nan", "inf" or "-inf" (printf's spelling on every platform)
  std::snprintf(value, sizeof(value), "%g", v[index]);
  return {
      node, round, FailureKind::kNonFinite,
      Where(node, round) + ": non-finite " + what + "[" + std::to_string(index) + "] = " + value};
}

std::optional<NodeFailure> QueryShapes(std::span<NodeProgram* const> programs, Shapes& shapes) {
  const std::size_t n = programs.size();
  shapes.max_message.assign(n, 0);
  shapes.finite_report.assign(n, 0);
  std::vector<std::size_t> report(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const char* method = "MaxMessageSize";
    try {
      shapes.max_message[i] = programs[i]->MaxMessageSize();
      method = "ReportSize";
      report[i] = programs[i]->ReportSize();
      method = "FiniteReportPrefix";
      shapes.finite_report[i] = programs[i]->FiniteReportPrefix();
    } catch (...) {
      return CaughtException(static_cast<int>(i), -1, method);
    }
  }
  if (report[0] == 0) throw std::invalid_argument("ReportSize must be > 0");
  for (std::size_t i = 0; i < n; ++i) {
    if (report[i] != report[0]) throw std::invalid_argument("node programs disagree on ReportSize");
    if (shapes.finite_report[i] > report[i]) {
      throw std::invalid_argument("node " + std::to_string(i) + ": FiniteReportPrefix " +
                                  std::to_string(shapes.finite_report[i]) + " exceeds ReportSize " +
                                  std::to_string(report[i]));
    }
  }
  shapes.report_width = report[0];
  return std::nullopt;
}

}  // namespace dpadmm::runtime::detail
