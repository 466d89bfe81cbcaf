// SPDX-License-Identifier: Apache-2.0
// dpadmm/party.h: one party of a network run, on the Experiment machinery (the in-memory path
// with a network placement, run/driver.h); the public spec every party agrees on.
#include "dpadmm/party.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <optional>
#include <utility>

#include "dpadmm/core/error.h"
#include "dpadmm/data/loaders.h"
#include "dpadmm/run/spec_json.h"
#include "run/driver.h"

namespace dpadmm {
namespace {

constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ULL;
constexpr std::uint64_t kFnvPrime = 0x100000001b3ULL;

std::vector<std::uint8_t> Fnv1a64(const std::string& text) {
  std::uint64_t h = kFnvOffset;
  for (unsigned char c : text) {
    h ^= c;
    h *= kFnvPrime;
  }
  std::vector<std::uint8_t> out(8);
  for (int k = 0; k < 8; ++k) out[k] = static_cast<std::uint8_t>(h >> (56 - 8 * k));
  return out;
}

// Each party's own fields of the spec JSON (not part of what the parties agree on).
constexpr const char* kOwnFields[] = {"data.train_path",
                                      "data.test_path",
                                      "data.train_labels_path",
                                      "data.test_labels_path",
                                      "data.rows",
                                      "data.dims",
                                      "data.test_fraction",
                                      "data.sparse_informative",
                                      "data.sparse_nnz_per_row",
                                      "data.sparse_flip_probability",
                                      "engine",
                                      "threads",
                                      "compute_optimum"};

void Leaves(const nlohmann::json& j, const std::string& path,
            std::vector<runtime::SpecField>& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      Leaves(it.value(), path.empty() ? it.key() : path + "." + it.key(), out);
    }
    return;
  }
  out.push_back(runtime::SpecField{path, Fnv1a64(j.dump())});
}

}  // namespace

PublicSpec PublicSpecOf(const RunSpec& spec, std::int64_t features, std::int64_t samples) {
  nlohmann::json j = nlohmann::json::parse(SpecToJson(spec));  // keys sorted
  for (const char* field : kOwnFields) {
    const std::string f = field;
    const std::size_t dot = f.find('.');
    if (dot == std::string::npos) {
      j.erase(f);
    } else if (j.contains(f.substr(0, dot))) {
      j[f.substr(0, dot)].erase(f.substr(dot + 1));
    }
  }
  j["data"]["features"] = features;
  if (samples >= 0) j["data"]["samples"] = samples;
  PublicSpec out;
  out.json = j.dump();
  out.hash = Fnv1a64(out.json);
  Leaves(j, "", out.fields);
  return out;
}

TrainTest LoadPartyData(const RunSpec& spec, const std::string& train_path,
                        const std::string& test_path, const std::string& train_labels_path,
                        const std::string& test_labels_path) {
  const DataSpec& d = spec.data;
  TrainTest out;
  switch (d.source) {
    case DataSource::kLibsvm:
      if (d.num_features <= 0) {
        throw InputError(
            "data.num_features: party mode with libsvm data needs the column count in the "
            "public spec (each party's file alone may not show the largest index)");
      }
      out.train = LoadLibsvm(train_path, d.num_features);
      if (!test_path.empty()) out.test = LoadLibsvm(test_path, d.num_features);
      break;
    case DataSource::kCsv:
      out.train = LoadCsv(train_path, d.label_column, d.delimiter, d.has_header);
      if (!test_path.empty())
        out.test = LoadCsv(test_path, d.label_column, d.delimiter, d.has_header);
      break;
    case DataSource::kAsc:
      out.train = LoadAsc(train_path, train_labels_path);
      if (!test_path.empty()) out.test = LoadAsc(test_path, test_labels_path);
      break;
    default:
      throw InputError(std::string("data.source: '") + ChoiceName(d.source) +
                       "' is not available in party mode: each party reads its own data file "
                       "(libsvm, csv or asc)" +
                       (d.source == DataSource::kAdult
                            ? " (adult's one-hot encoding depends on every party's categories: "
                              "convert it to libsvm with a public encoding)"
                            : ""));
  }
  if (!test_path.empty() && out.test.cols() != out.train.cols()) {
    throw InputError(test_path + ": test data has " + std::to_string(out.test.cols()) +
                     " columns but training data has " + std::to_string(out.train.cols()));
  }
  return out;
}

int SharingPartyNode(const RunSpec& spec, const runtime::NetworkOptions& network) {
  const int self = runtime::SelfIndex(network);
  if (self < 0) {
    throw InputError("party: this party's id '" + network.self + "' is not in the party list");
  }
  if (network.node_parties.empty()) {
    const int nodes = spec.algorithm.As<SharingParams>().parties + 1;
    if (static_cast<int>(network.parties.size()) != nodes) {
      throw InputError("parties: " + std::to_string(network.parties.size()) +
                       " parties for a sharing run of " + std::to_string(nodes) +
                       " nodes (the coordinator and algorithm.sharing.parties feature parties): "
                       "without node_parties, party k hosts node k");
    }
    return self;
  }
  const std::vector<int> nodes = runtime::PartyNodes(network.node_parties, self);
  if (nodes.size() != 1) {
    throw InputError("node_parties: party '" + network.self + "' hosts " +
                     std::to_string(nodes.size()) +
                     " nodes; in the sharing family each party hosts one: the coordinator (node "
                     "0, the labels) or one feature party (node m, block m)");
  }
  return nodes[0];
}

Dataset LoadSharingPartyRows(const RunSpec& spec, int node, const std::string& path) {
  if (node == 0) {
    // A LIBSVM file whose rows have no feature: its labels, mapped as LIBSVM's.
    Dataset labels = LoadLibsvm(path);
    if (labels.cols() != 0) {
      throw InputError(path + ": the coordinator's file holds the labels only (one per line), " +
                       "not feature values (" + std::to_string(labels.cols()) + " columns)");
    }
    return labels;
  }
  const std::vector<std::int64_t>& sizes = spec.algorithm.As<SharingParams>().party_features;
  if (node < 1 || node > static_cast<int>(sizes.size())) {
    throw InputError("algorithm.sharing.party_features: no block for feature party " +
                     std::to_string(node));
  }
  // The intercept column is added to the last block by the party (dpadmm/party.h).
  const bool bias = spec.data.add_bias && node == static_cast<int>(sizes.size());
  const std::int64_t width = sizes[static_cast<std::size_t>(node - 1)] - (bias ? 1 : 0);
  if (width < 1) {
    throw InputError("algorithm.sharing.party_features[" + std::to_string(node - 1) +
                     "]: feature party " + std::to_string(node) + " needs a column of its own");
  }
  const std::vector<char> all(static_cast<std::size_t>(width), 1);
  switch (spec.data.source) {
    case DataSource::kLibsvm: return ReadLibsvmColumns(path, all, false, width).data;
    case DataSource::kAsc: return ReadAscColumns(path, "", all).data;
    default:
      throw InputError(std::string("data.source: '") + ChoiceName(spec.data.source) +
                       "' is not available for the sharing family in party mode: a feature "
                       "party's file is its block, libsvm (the label field is not read) or asc "
                       "(values only)");
  }
}

Party::Party(RunSpec spec, Dataset train, Dataset test, runtime::NetworkOptions network) {
  if (spec.engine == runtime::EngineKind::kMpi) {
    throw InputError(
        "engine: 'mpi' in party mode: the parties talk over the network engine; engine says how "
        "a party runs its own nodes (serial or tbb)");
  }
  const bool sharing = spec.family() == Family::kSharing;
  if (sharing && network.node_parties.empty()) {
    SharingPartyNode(spec, network);  // checks the party count
    for (std::size_t k = 0; k < network.parties.size(); ++k) {
      network.node_parties.push_back(static_cast<int>(k));
    }
  } else if (network.node_parties.empty()) {
    // Default map: node k on party k.
    if (spec.graph.nodes != static_cast<int>(network.parties.size())) {
      throw InputError("graph.nodes: " + std::to_string(spec.graph.nodes) + " nodes and " +
                       std::to_string(network.parties.size()) +
                       " parties: without a node-to-party map every party hosts one node "
                       "(node k on party k); give the map");
    }
    for (int k = 0; k < spec.graph.nodes; ++k) network.node_parties.push_back(k);
  }
  std::unique_ptr<Experiment::Driver> driver =
      BuildPartyDriver(std::move(spec), std::move(train), std::move(test), network);
  // Sharing: every party holds every sample (the row count is public) and the coordinator's
  // broadcast [s - z; y] has 2N values, the longest message of the run.
  public_ =
      PublicSpecOf(driver->spec, driver->info.features, sharing ? driver->info.train_rows : -1);
  if (sharing) {
    driver->network->max_message_doubles = 2 * static_cast<std::size_t>(driver->info.train_rows);
  }
  driver->network->spec_hash = public_.hash;
  driver->network->spec_fields = public_.fields;
  experiment_.reset(new Experiment(std::move(driver)));
}

Party::~Party() = default;
Party::Party(Party&&) noexcept = default;
Party& Party::operator=(Party&&) noexcept = default;

const RunSpec& Party::spec() const { return experiment_->spec(); }
const RunInfo& Party::info() const { return experiment_->info(); }
const std::vector<int>& Party::nodes() const { return experiment_->driver_->hosted; }

RunSummary Party::Run(RunObserver* observer, const runtime::StopToken* stop) const {
  return experiment_->Run(observer, stop);
}

void CheckPartyResume(const RunSpec& spec, const CheckpointOptions& checkpoint) {
  if (checkpoint.resume_path.empty() || !PrivateRun(spec)) return;
  throw InputError(
      "--resume: a private run across parties cannot resume: the rounds this party released "
      "after its checkpoint reached the other parties under noise keys that are never written, "
      "and a resumed run would release them again without the first releases in its privacy "
      "figure; resume only with noise_seed (simulation), or start a new run");
}

RunSummary Party::Run(const CheckpointOptions& checkpoint, RunObserver* observer,
                      const runtime::StopToken* stop) const {
  CheckPartyResume(spec(), checkpoint);
  return experiment_->RunCheckpointed(checkpoint, observer, stop);
}

RunSummary Party::SerialAsParty(RunSpec spec, Dataset train, Dataset test, std::vector<int> view,
                                RunObserver* observer) {
  const int nodes = spec.family() == Family::kConsensus ? spec.graph.nodes
                    : spec.algorithm.name() == Algorithm::kSharing
                        ? spec.algorithm.As<SharingParams>().parties + 1
                        : 0;
  if (nodes == 0) throw InputError("SerialAsParty: the sgd baseline has no party mode");
  std::sort(view.begin(), view.end());
  if (view.empty() || view.front() < 0 || view.back() >= nodes ||
      std::adjacent_find(view.begin(), view.end()) != view.end()) {
    throw InputError("SerialAsParty: view must list distinct nodes of the run");
  }
  Experiment serial(std::move(spec), std::move(train), std::move(test));
  serial.driver_->view = std::move(view);
  return serial.RunOn(runtime::EngineKind::kSerial, 1, observer);
}

}  // namespace dpadmm

namespace dpadmm {
namespace {

[[noreturn]] void Bad(const std::string& where, const std::string& field, const std::string& why) {
  throw InputError(where + ": " + field + ": " + why);
}

std::string String(const nlohmann::json& j, const std::string& where, const std::string& field) {
  if (!j.is_string()) Bad(where, field, std::string("must be a string, got ") + j.type_name());
  return j.get<std::string>();
}

double Seconds(const nlohmann::json& j, const std::string& where, const std::string& field) {
  if (!j.is_number()) Bad(where, field, std::string("must be a number, got ") + j.type_name());
  const double v = j.get<double>();
  if (!(v > 0.0 && v <= 86400.0)) Bad(where, field, "must be in (0, 86400] seconds");
  return v;
}

// host:port with a port in 1..65535 (the engine checks the host when it dials or listens).
void CheckAddress(const std::string& address, const std::string& where, const std::string& field) {
  const std::size_t colon = address.rfind(':');
  const std::string port = colon == std::string::npos ? "" : address.substr(colon + 1);
  bool digits = !port.empty() && port.size() <= 5;
  for (char c : port) digits = digits && c >= '0' && c <= '9';
  if (colon == 0 || !digits || std::stoi(port) < 1 || std::stoi(port) > 65535) {
    Bad(where, field, "'" + address + "' is not host:port (a port in 1-65535)");
  }
}

}  // namespace

PartyFile ParsePartyFile(const std::string& text, const std::string& where) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(where + ": JSON syntax error at byte " + std::to_string(e.byte));
  } catch (const nlohmann::json::out_of_range& e) {
    // A number beyond the double range (e.g. 1e999): refused like the spec's own parser does.
    throw InputError(where + ": a number is outside the range of a double (" + e.what() + ")");
  }
  if (!j.is_object()) throw InputError(where + ": must be a JSON object");
  static const char* const kKeys[] = {"spec",
                                      "party",
                                      "data",
                                      "test",
                                      "data_labels",
                                      "test_labels",
                                      "parties",
                                      "node_parties",
                                      "tls",
                                      "setup_timeout_seconds",
                                      "peer_timeout_seconds",
                                      "trace",
                                      "trace_format",
                                      "summary",
                                      "model_out",
                                      "checkpoint",
                                      "checkpoint_every",
                                      "resume"};
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (std::find(std::begin(kKeys), std::end(kKeys), it.key()) == std::end(kKeys)) {
      Bad(where, it.key(),
          "unknown field (fields: spec, party, data, test, data_labels, "
          "test_labels, parties, node_parties, tls, setup_timeout_seconds, "
          "peer_timeout_seconds, trace, trace_format, summary, model_out, checkpoint, "
          "checkpoint_every, resume)");
    }
  }
  for (const char* required : {"spec", "party", "data", "parties"}) {
    if (!j.contains(required)) Bad(where, required, "missing (required)");
  }
  PartyFile f;
  if (!j["spec"].is_object()) Bad(where, "spec", "must be an object (the run spec)");
  const std::string spec_text = j["spec"].dump();
  const std::string spec_where = where + ": spec";
  const std::optional<Algorithm> algorithm = PeekAlgorithm(spec_text, spec_where);
  f.spec = RunSpec::Defaults(algorithm.value_or(Algorithm::kAdmm));
  ApplySpecJson(spec_text, spec_where, f.spec);
  DataSpec& data = f.spec.data;
  for (const auto& [path, name] : {std::pair{&data.train_path, "train_path"},
                                   {&data.test_path, "test_path"},
                                   {&data.train_labels_path, "train_labels_path"},
                                   {&data.test_labels_path, "test_labels_path"}}) {
    if (!path->empty()) {
      Bad(spec_where, std::string("data.") + name,
          "a party's files are the party file's own fields (data, test, data_labels, "
          "test_labels), not part of the public spec: remove it");
    }
  }
  runtime::NetworkOptions& n = f.network;
  n.self = String(j["party"], where, "party");
  f.data = String(j["data"], where, "data");
  if (f.data.empty()) Bad(where, "data", "must name this party's data file");
  if (j.contains("test")) f.test = String(j["test"], where, "test");
  if (j.contains("data_labels")) f.data_labels = String(j["data_labels"], where, "data_labels");
  if (j.contains("test_labels")) f.test_labels = String(j["test_labels"], where, "test_labels");
  // The spec's checks see this party's files (they are not in the public spec).
  data.train_path = f.data;
  data.test_path = f.test;
  data.train_labels_path = f.data_labels;
  data.test_labels_path = f.test_labels;
  try {
    f.spec.Validate();
  } catch (const InputError& e) {
    throw InputError(spec_where + ": " + e.what());
  }
  try {
    CheckPartySpec(f.spec);  // before any file is read
  } catch (const InputError& e) {
    throw InputError(spec_where + ": " + e.what());
  }
  if (f.spec.family() == Family::kSharing) {
    // A test row is every party's columns and a label: no party holds one.
    for (const auto& [value, name] : {std::pair{&f.test, "test"},
                                      {&f.data_labels, "data_labels"},
                                      {&f.test_labels, "test_labels"}}) {
      if (!value->empty()) {
        Bad(where, name,
            "not used by the sharing family: the coordinator's data file is its labels, a "
            "feature party's its block of every row; no party holds a whole test row");
      }
    }
  }
  const nlohmann::json& parties = j["parties"];
  if (!parties.is_array() || parties.size() < 2) {
    Bad(where, "parties",
        "must be an array of at least 2 {\"id\", \"address\"} objects (and an optional "
        "\"listen\")");
  }
  for (std::size_t p = 0; p < parties.size(); ++p) {
    const std::string at = "parties[" + std::to_string(p) + "]";
    const nlohmann::json& e = parties[p];
    if (!e.is_object() || !e.contains("id") || !e.contains("address") ||
        e.size() != (e.contains("listen") ? 3u : 2u)) {
      Bad(where, at,
          "must be an object with exactly \"id\" and \"address\" (where the others reach the "
          "party), and optionally \"listen\" (where the party listens; default: its address)");
    }
    runtime::PartyAddress a{String(e["id"], where, at + ".id"),
                            String(e["address"], where, at + ".address")};
    CheckAddress(a.address, where, at + ".address");
    if (e.contains("listen")) {
      a.listen = String(e["listen"], where, at + ".listen");
      CheckAddress(a.listen, where, at + ".listen");
    }
    for (std::size_t q = 0; q < p; ++q) {
      if (n.parties[q].id == a.id) Bad(where, at + ".id", "'" + a.id + "' appears twice");
    }
    n.parties.push_back(std::move(a));
  }
  const auto party_number = [&](const std::string& id, const std::string& field) {
    for (std::size_t p = 0; p < n.parties.size(); ++p) {
      if (n.parties[p].id == id) return static_cast<int>(p);
    }
    Bad(where, field, "'" + id + "' is not one of the parties");
  };
  party_number(n.self, "party");
  // The id names this party's default outputs: a DNS label, as the engine requires.
  bool label = !n.self.empty() && n.self.size() <= 63 && n.self.front() != '-';
  for (char c : n.self)
    label = label && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-');
  if (!label) {
    Bad(where, "party",
        "'" + n.self +
            "' is not a party id (a DNS label: a-z, 0-9 and '-', at most 63 characters)");
  }
  if (j.contains("node_parties")) {
    const nlohmann::json& map = j["node_parties"];
    if (!map.is_array()) Bad(where, "node_parties", "must be an array of party ids (node k)");
    for (std::size_t k = 0; k < map.size(); ++k) {
      const std::string at = "node_parties[" + std::to_string(k) + "]";
      n.node_parties.push_back(party_number(String(map[k], where, at), at));
    }
  }
  if (j.contains("tls")) {
    const nlohmann::json& tls = j["tls"];
    if (!tls.is_object()) Bad(where, "tls", "must be an object {\"ca\", \"cert\", \"key\"}");
    for (auto it = tls.begin(); it != tls.end(); ++it) {
      const std::string at = "tls." + it.key();
      std::string* target = it.key() == "ca"     ? &n.tls.ca_cert
                            : it.key() == "cert" ? &n.tls.cert
                            : it.key() == "key"  ? &n.tls.key
                                                 : nullptr;
      if (target == nullptr) Bad(where, at, "unknown field (fields: ca, cert, key)");
      *target = String(it.value(), where, at);
    }
  }
  if (j.contains("setup_timeout_seconds")) {
    n.setup_timeout_seconds = Seconds(j["setup_timeout_seconds"], where, "setup_timeout_seconds");
  }
  if (j.contains("peer_timeout_seconds")) {
    n.peer_timeout_seconds = Seconds(j["peer_timeout_seconds"], where, "peer_timeout_seconds");
  }
  // Outputs: by default named after the party, so that parties sharing a folder never collide.
  f.trace =
      j.contains("trace") ? String(j["trace"], where, "trace") : "dpadmm-" + n.self + "-trace.csv";
  f.summary = j.contains("summary") ? String(j["summary"], where, "summary")
                                    : "dpadmm-" + n.self + "-summary.json";
  if (f.trace.empty()) Bad(where, "trace", "must name a file (or leave the field out)");
  if (f.summary.empty()) Bad(where, "summary", "must name a file (or leave the field out)");
  if (j.contains("trace_format")) {
    f.trace_format = String(j["trace_format"], where, "trace_format");
    try {
      (void)ParseChoice<TraceFormat>(f.trace_format, "trace_format");
    } catch (const InputError& e) {
      throw InputError(where + ": " + e.what());
    }
  }
  if (j.contains("model_out")) f.model_out = String(j["model_out"], where, "model_out");
  if (j.contains("checkpoint")) f.checkpoint = String(j["checkpoint"], where, "checkpoint");
  if (j.contains("resume")) f.resume = String(j["resume"], where, "resume");
  if (j.contains("checkpoint_every")) {
    const nlohmann::json& every = j["checkpoint_every"];
    if (!every.is_number_integer() || every.get<std::int64_t>() < 1) {
      Bad(where, "checkpoint_every", "must be an integer >= 1 (rounds between checkpoints)");
    }
    f.checkpoint_every = every.get<std::int64_t>();
    if (f.checkpoint.empty()) Bad(where, "checkpoint_every", "needs \"checkpoint\" (its file)");
  }
  if (!f.model_out.empty() && f.spec.family() == Family::kSharing) {
    Bad(where, "model_out",
        "the sharing family has no whole model at any party (each feature party's weights are "
        "its own block, in its summary's model): remove it");
  }
  return f;
}

}  // namespace dpadmm
