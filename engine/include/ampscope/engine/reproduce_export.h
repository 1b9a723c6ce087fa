// "Reproduce in PyTorch": writes a folder from which a student reruns an AmpScope comparison in plain
// PyTorch. The folder holds run.py (a standalone script in the chapter's style: an nn.Module with the
// engine's state_dict names, torch.autocast around forward + loss, a GradScaler where the mode uses one,
// the same optimizer, loss weight and clipping order), the initial weights and every step's batch as
// .npy files, README.txt, and optionally the losses AmpScope recorded so run.py can print the largest
// difference.
//
// The .npy files are written here, not by numpy: NPY format version 1.0 (numpy's documented format):
// the magic "\x93NUMPY", bytes 1 and 0, a little-endian uint16 header length, then an ASCII Python dict
// literal {'descr': '<f4', 'fortran_order': False, 'shape': (a, b), } padded with spaces and ended by
// '\n' so that the data starts at a multiple of 64 bytes, then the raw little-endian C-order data.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ampscope/engine/run_config.h"
#include "ampscope/engine/telemetry.h"

namespace ampscope {

// The complete NPY v1.0 preamble (magic, version, header length, padded header) for an array of dtype
// `descr` ("<f4" or "<i8") and `shape` (empty: a 0-d array). Its size is a multiple of 64.
std::string npyHeader(const std::string& descr, const std::vector<int64_t>& shape);

// Writes a float32 / int64 array. `values.size()` must equal the product of `shape`. Returns false and
// sets `error` (the path and the reason) when it cannot; never throws for I/O problems.
bool writeNpyFloat32(const std::string& path, const std::vector<int64_t>& shape,
                     const std::vector<float>& values, std::string* error);
bool writeNpyInt64(const std::string& path, const std::vector<int64_t>& shape,
                   const std::vector<int64_t>& values, std::string* error);

struct ReproduceExportResult {
  bool ok = false;
  std::string error;               // why not, naming the file or the field
  std::vector<std::string> files;  // every file written, relative to the folder
  int64_t bytes = 0;               // their total size
};

// Writes the reproduction folder for `config` (every configured mode) and its first `steps` steps.
// The initial weights and the batches come from a fresh Comparison(config): the same seed gives the same
// weights and batches the app trained on. `recorded`, when not empty, are the app's step records of that
// run; their losses go to ampscope_loss.csv (step,mode,loss). The folder is created if needed; files of
// an earlier export in it are replaced. Fails with a message (never throws) on an invalid config,
// steps < 1, or an unwritable folder.
ReproduceExportResult exportReproduction(const RunConfig& config, int64_t steps, const std::string& directory,
                                         const std::vector<StepRecord>& recorded = {});

// The run.py text alone (used by exportReproduction; exposed for tests and the UI's preview).
// `parameters` are (name, shape) pairs in the engine's order; batch tensor names likewise.
std::string reproduceScript(const RunConfig& config, int64_t steps,
                            const std::vector<std::pair<std::string, std::vector<int64_t>>>& parameters,
                            const std::vector<std::string>& batchTensorNames);

}  // namespace ampscope
