// "Reproduce in PyTorch": writes a folder from which a student reruns an AmpScope comparison in plain
// PyTorch. The folder holds run.py (a standalone script in the chapter's style: an nn.Module with the
// engine's state_dict names, torch.autocast around forward + loss, a GradScaler where the mode uses one,
// the same optimizer, loss weight and clipping order), the initial weights and every step's batch as
// .npy files (npy_writer.h), README.txt, and optionally the losses AmpScope recorded so run.py can print
// the largest difference.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ampscope/engine/run_config.h"
#include "ampscope/engine/telemetry.h"

namespace ampscope {

struct ReproduceExportResult {
  bool ok = false;
  std::string error;               // why not, naming the file, the folder or the field
  std::vector<std::string> files;  // every file written, relative to the folder
  int64_t bytes = 0;               // their total size
  // The folder held entries and no .ampscope-reproduce: the first few names (byte order) and how many
  // there were. Refused unless forced; a caller may show them and ask before forcing.
  std::vector<std::string> foreignEntries;
  int64_t foreignCount = 0;
};

// Writes the reproduction folder for `config` (every configured mode) and its first `steps` steps.
// The initial weights and the batches come from a fresh Comparison(config): the same seed gives the same
// weights and batches the app trained on. `recorded`, when not empty, are the app's step records of that
// run; their losses go to ampscope_loss.csv (step,mode,loss).
// The folder is created if needed. An existing one must be empty or hold the .ampscope-reproduce file
// every export writes first: then the files of that earlier export are replaced and any others kept.
// A non-empty folder without it is refused unless `force`: then the export writes its own files into it
// and deletes nothing (a stale ampscope_loss.csv there is overwritten with no rows instead of removed).
// A path that is not a folder, "/", and an export file name taken by a link, folder or special file
// are refused even with `force`. Fails with a message (never throws) on those, an invalid config,
// steps < 1, batches too large to hold (reproduceSizeProblem), or an unwritable folder.
ReproduceExportResult exportReproduction(const RunConfig& config, int64_t steps, const std::string& directory,
                                         const std::vector<StepRecord>& recorded = {}, bool force = false);

// The export holds every step's batch in memory before it writes them (and as many bytes land on disk):
// steps x batch x one example's bytes (config_schema.h's estimate) may not pass kStepMemoryLimitBytes.
// Empty when they fit; otherwise why, with the estimate and the most steps that fit.
std::string reproduceSizeProblem(const RunConfig& config, int64_t steps);

// The folder checks of exportReproduction alone, writing nothing: `ok`, or the error and foreign entries
// the export would give. For a caller that trains before exporting and should refuse first.
ReproduceExportResult checkReproduceFolder(const std::string& directory, bool force = false);

// The run.py text alone (used by exportReproduction; exposed for tests and the UI's preview).
// `parameters` are (name, shape) pairs in the engine's order; batch tensor names likewise.
// emulatedModes: the FP16/BF16 modes the engine ran emulated (Comparison::capabilities: no native kernels
// on its LibTorch, or its precision-path choice), which run.py emulates too on a CPU; it runs the others
// natively where its PyTorch can.
std::string reproduceScript(const RunConfig& config, int64_t steps,
                            const std::vector<std::pair<std::string, std::vector<int64_t>>>& parameters,
                            const std::vector<std::string>& batchTensorNames,
                            const std::vector<PrecisionMode>& emulatedModes = {});

}  // namespace ampscope
