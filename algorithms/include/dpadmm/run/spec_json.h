// SPDX-License-Identifier: Apache-2.0
// JSON and CSV text for run specs, run information, summaries and per-round metrics.
//
// One versioned format for both families. Spec JSON mirrors RunSpec field by field (see
// SpecToJson for the full shape); the selected algorithm's parameters are the object
// algorithm.<name>:
//
//   {"schema": 2, "data": {"source": "libsvm", "train_path": "a9a"}, "graph": {"nodes": 20},
//    "algorithm": {"name": "dvp", "dvp": {"alpha": 0.5}}, "iterations": 200, "seed": 7}
//   {"schema": 2, "algorithm": {"name": "sharing", "sharing": {"parties": 3, "dp": true}}}
//
// Version rule: "schema" is kSpecSchema; it is optional on input (a spec without it is read as
// the current schema) and always written. A change that renames or removes a field raises the
// version, and every field of an older schema gets an InputError naming the field and what
// replaced it ("'epochs' is a schema-1 field; schema 2 replaced it by 'iterations'"). Adding a
// field with a default keeps the version. Summaries carry the same "schema".
//
// Numbers are written in the shortest form that reads back to the identical double (up to 17
// significant digits), so two traces of the same seeded run are equal as text. NaN and
// infinities become null in JSON and "nan" / "inf" / "-inf" in CSV.
// All functions are pure (no I/O) and safe to call from several threads at once.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "dpadmm/run/run.h"
#include "dpadmm/run/run_spec.h"

namespace dpadmm {

inline constexpr int kSpecSchema = 2;

// The label of every figure computed on private data in a run whose outputs a guarantee binds
// (RunInfo::evaluation): summary field "evaluation_on_private_data", trace header, CLI lines.
inline constexpr const char* kPrivateEvaluationLabel =
    "evaluation on private data, outside the guarantee";

// Applies the JSON object in `json_text` onto `spec`: fields present override, absent fields
// keep their value. `where` names the source in messages (usually the file name). Throws
// InputError, leaving `spec` unchanged, for a syntax error ("run.json:3: JSON syntax error at
// column 5 ..."), an unknown key ("run.json: unknown field 'algorithm.etta'") or a value of the
// wrong type ("run.json: algorithm.eta must be a number, got string"). Ranges are not checked
// here: call RunSpec::Validate() once the spec is complete.
void ApplySpecJson(const std::string& json_text, const std::string& where, RunSpec& spec);

// The algorithm named by the JSON's algorithm.name, if any (to start from that algorithm's
// RunSpec::Defaults before ApplySpecJson). Throws InputError for a syntax error or an unknown name.
std::optional<Algorithm> PeekAlgorithm(const std::string& json_text, const std::string& where);

// The spec a JSON text describes, parsed once: RunSpec::Defaults of the algorithm it names
// (admm if none) with its fields applied (PeekAlgorithm, then ApplySpecJson, on one parse).
// Not validated: call RunSpec::Validate() once the spec is complete. Throws InputError as
// ApplySpecJson does.
RunSpec SpecFromJson(const std::string& json_text, const std::string& where);

// Every field of `spec` that applies to its family as an indented JSON object (no trailing
// newline). Round-trips: ApplySpecJson(SpecToJson(s), ...) onto
// RunSpec::Defaults(s.algorithm.name()) reproduces s.
std::string SpecToJson(const RunSpec& spec);

// Indented JSON objects (no trailing newline).
std::string RunInfoToJson(const RunInfo& info);
// outcome, message, rounds, seconds, final metrics, info and the model vector.
std::string SummaryToJson(const RunSummary& summary);

// One column of the trace formats: its name, the families it belongs to and the RoundMetrics
// field it shows. Exactly one of `integer` (round), `scalar` and `per_node` (node_privacy,
// node_noise) is set.
struct TraceColumn {
  const char* name;
  bool consensus;  // in the trace of consensus runs
  bool sharing;    // in the trace of sharing runs
  std::int64_t RoundMetrics::*integer = nullptr;
  double RoundMetrics::*scalar = nullptr;
  std::vector<double> RoundMetrics::*per_node = nullptr;
  bool In(Family family) const { return family == Family::kConsensus ? consensus : sharing; }
};

// Every trace column of both families, in the formats' order (the one table the CSV and
// JSON-lines traces, the Python binding's history and the tests' bit comparisons read).
std::span<const TraceColumn> TraceColumns();

// The trace formats write the columns of TraceColumns() that apply to the run's family, by
// name, in the table's order.
// One round as a single-line JSON object (no newline): the JSON-lines trace format.
std::string MetricsToJsonLine(const RoundMetrics& metrics, Family family = Family::kConsensus);

// The CSV trace format: a fixed header and one row per round (no newlines). The per-node
// vectors (node_privacy, node_noise) are one column each, values separated by ';'.
std::string MetricsCsvHeader(Family family = Family::kConsensus);
std::string MetricsToCsvRow(const RoundMetrics& metrics, Family family = Family::kConsensus);

}  // namespace dpadmm
