// JSON and CSV text for run specs, run information, summaries and per-round metrics.
//
// Spec JSON mirrors RunSpec field by field (see SpecToJson for the full shape):
//
//   {"data": {"source": "libsvm", "train_path": "a9a"}, "graph": {"nodes": 20},
//    "algorithm": {"name": "dvp", "alpha": 0.5}, "iterations": 200, "seed": 7}
//
// Numbers are written in the shortest form that reads back to the identical double (up to 17
// significant digits), so two traces of the same seeded run are equal as text. NaN and
// infinities become null in JSON and "nan" / "inf" / "-inf" in CSV.
// All functions are pure (no I/O) and safe to call from several threads at once.
#pragma once

#include <string>

#include "dpadmm/experiment/run.h"
#include "dpadmm/experiment/run_spec.h"

namespace dpadmm {

// Applies the JSON object in `json_text` onto `spec`: fields present override, absent fields
// keep their value. `where` names the source in messages (usually the file name). Throws
// InputError, leaving `spec` unchanged, for a syntax error ("run.json:3: JSON syntax error at
// column 5 ..."), an unknown key ("run.json: unknown field 'algorithm.etta'") or a value of the
// wrong type ("run.json: algorithm.eta must be a number, got string"). Ranges are not checked
// here: call RunSpec::Validate() once the spec is complete.
void ApplySpecJson(const std::string& json_text, const std::string& where, RunSpec& spec);

// Every field of `spec` as an indented JSON object (no trailing newline). Round-trips:
// ApplySpecJson(SpecToJson(s), ...) onto any spec reproduces s.
std::string SpecToJson(const RunSpec& spec);

// Indented JSON objects (no trailing newline).
std::string RunInfoToJson(const RunInfo& info);
// outcome, message, rounds, seconds, final metrics, info and the model vector.
std::string SummaryToJson(const RunSummary& summary);

// One round as a single-line JSON object (no newline): the JSON-lines trace format.
std::string MetricsToJsonLine(const RoundMetrics& metrics);

// The CSV trace format: a fixed header and one row per round (no newlines). The per-node
// vectors (node_privacy, node_noise) are one column each, values separated by ';'.
std::string MetricsCsvHeader();
std::string MetricsToCsvRow(const RoundMetrics& metrics);

}  // namespace dpadmm
