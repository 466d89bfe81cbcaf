// SPDX-License-Identifier: Apache-2.0
// The processes of a multi-process run, as placement/ needs them: who this process is, how many
// there are, and the two agreements the per-process loading makes (values gathered from every
// process; a maximum). Nothing here names a transport: MPI implements it (mpi_transport.cpp,
// MpiProcessGroup), and a later multi-process engine implements it over its own links.
// Collective: every process of the group calls each member at the same point, in the same order.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "dpadmm/runtime/mpi.h"

namespace dpadmm {

class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  // This process's index in 0..Size()-1 (the MPI rank); process 0 reports.
  virtual int Rank() const = 0;
  virtual int Size() const = 0;
  // Every process's `values`, concatenated in process order (each may contribute a different
  // count).
  virtual std::vector<double> Allgather(std::span<const double> values) const = 0;
  // The largest `value` over the processes (exact).
  virtual double AllreduceMax(double value) const = 0;
};

// The processes of an MPI communicator (runtime/mpi.h).
std::unique_ptr<ProcessGroup> MpiProcessGroup(runtime::MpiComm comm);

}  // namespace dpadmm
