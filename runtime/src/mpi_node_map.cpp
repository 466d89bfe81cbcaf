// SPDX-License-Identifier: Apache-2.0
// Node-to-rank maps for the MPI engine. Independent of MPI, so built everywhere.
#include <cctype>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "dpadmm/runtime/mpi.h"

namespace dpadmm::runtime {

std::vector<int> ContiguousNodeRanks(int nodes, int ranks) {
  if (nodes < 0 || ranks < 1) {
    throw std::invalid_argument("ContiguousNodeRanks: need nodes >= 0 and ranks >= 1");
  }
  std::vector<int> map(static_cast<std::size_t>(nodes));
  for (int p = 0; p < ranks; ++p) {
    // Block p is [p n / P, (p + 1) n / P); 64-bit products so that n P cannot overflow.
    const auto begin = static_cast<std::int64_t>(p) * nodes / ranks;
    const auto end = static_cast<std::int64_t>(p + 1) * nodes / ranks;
    for (auto i = begin; i < end; ++i) map[static_cast<std::size_t>(i)] = p;
  }
  return map;
}

std::vector<int> ParseNodeRanks(std::istream& in, const std::string& name) {
  std::vector<int> map;
  std::string line;
  long long line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::size_t b = 0;
    while (b < line.size() && std::isspace(static_cast<unsigned char>(line[b]))) ++b;
    std::size_t e = line.size();
    while (e > b && std::isspace(static_cast<unsigned char>(line[e - 1]))) --e;
    const std::string field = line.substr(b, e - b);
    const std::string where = name + ":" + std::to_string(line_no) + ": ";
    if (field.empty()) {
      throw std::invalid_argument(where + "empty line (line k must hold the rank of node " +
                                  std::to_string(line_no - 1) + ")");
    }
    bool digits = field.size() <= 9;
    for (char c : field) digits = digits && c >= '0' && c <= '9';
    if (!digits) {
      throw std::invalid_argument(where + "rank of node " + std::to_string(line_no - 1) +
                                  " must be an integer >= 0, got '" + field + "'");
    }
    map.push_back(std::stoi(field));
  }
  if (map.empty()) throw std::invalid_argument(name + ": no nodes (expected one rank per line)");
  return map;
}

std::vector<int> ReadNodeRankFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(path + ": cannot open node-to-rank file");
  return ParseNodeRanks(in, path);
}

std::vector<int> LocalNodes(std::span<const int> node_ranks, int rank) {
  std::vector<int> nodes;
  for (std::size_t i = 0; i < node_ranks.size(); ++i) {
    if (node_ranks[i] == rank) nodes.push_back(static_cast<int>(i));
  }
  return nodes;
}

}  // namespace dpadmm::runtime
