// exportReproduction: the folder, the initial weights, every step's batch, run.py, the recorded losses
// and README.txt, in that order. What each file says is decided in script_generator.cpp and
// readme_text.cpp; the NPY bytes in npy_writer.cpp.
#include "ampscope/engine/reproduce_export.h"

#include <cmath>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "ampscope/engine/comparison.h"
#include "ampscope/engine/config_schema.h"
#include "ampscope/engine/npy_writer.h"
#include "ampscope/engine/number_text.h"
#include "reproduce/export_folder.h"
#include "reproduce/readme_text.h"

namespace ampscope {
namespace {

namespace fs = std::filesystem;

// Stacks every step's tensors: one array per batch tensor with a leading step axis. The first step's
// tensors fix the names, dtypes and shapes; a later step that differs is an engine bug.
std::vector<Comparison::NamedTensor> stackedBatches(Comparison& comparison, int64_t steps) {
  std::vector<Comparison::NamedTensor> stacked;
  for (int64_t step = 1; step <= steps; ++step) {
    auto batch = comparison.batch(step);
    if (step == 1) {
      stacked = batch;
      for (auto& tensor : stacked) tensor.shape.insert(tensor.shape.begin(), steps);
      for (auto& tensor : stacked) {
        tensor.values.reserve(tensor.values.size() * static_cast<size_t>(steps));
        tensor.intValues.reserve(tensor.intValues.size() * static_cast<size_t>(steps));
      }
      continue;
    }
    if (batch.size() != stacked.size()) {
      throw std::runtime_error("step " + std::to_string(step) + " has a different number of batch tensors");
    }
    for (size_t i = 0; i < batch.size(); ++i) {
      if (batch[i].name != stacked[i].name ||
          std::vector<int64_t>(stacked[i].shape.begin() + 1, stacked[i].shape.end()) != batch[i].shape) {
        throw std::runtime_error("batch tensor '" + batch[i].name + "' of step " + std::to_string(step) +
                                 " differs in name or shape from step 1");
      }
      stacked[i].values.insert(stacked[i].values.end(), batch[i].values.begin(), batch[i].values.end());
      stacked[i].intValues.insert(stacked[i].intValues.end(), batch[i].intValues.begin(),
                                  batch[i].intValues.end());
    }
  }
  if (stacked.size() < 2) {
    throw std::runtime_error("the engine's batch has " + std::to_string(stacked.size()) +
                             " tensors; run.py expects inputs and targets");
  }
  return stacked;
}

// step,mode,loss for the recorded steps up to `steps`; Python's float() reads nan, inf and -inf too.
std::string lossCsv(const std::vector<StepRecord>& recorded, int64_t steps) {
  std::ostringstream csv;
  csv << "step,mode,loss\n";
  for (const auto& stepRecord : recorded) {
    if (stepRecord.step > steps) continue;
    for (const auto& mode : stepRecord.modes) {
      csv << mode.step << ',' << modeName(mode.mode) << ',' << numberText(mode.loss) << '\n';
    }
  }
  return csv.str();
}

}  // namespace

std::string reproduceSizeProblem(const RunConfig& config, int64_t steps) {
  const StepMemoryEstimate estimate = stepMemoryEstimate(config);
  const double perStep = static_cast<double>(estimate.exampleBytes) * static_cast<double>(config.batchSize);
  const double bytes = perStep * static_cast<double>(steps);
  if (bytes <= static_cast<double>(kStepMemoryLimitBytes)) return std::string();
  const auto most = static_cast<int64_t>(std::floor(static_cast<double>(kStepMemoryLimitBytes) / perStep));
  return "the batches of " + std::to_string(steps) + " steps (batch " + std::to_string(config.batchSize) + ", " +
         std::to_string(estimate.exampleBytes) + " bytes an example) would need about " +
         numberText(std::round(bytes / 1e8) / 10) + " GB in memory and on disk, more than the " +
         numberText(std::round(static_cast<double>(kStepMemoryLimitBytes) / 1e8) / 10) +
         " GB an export may hold; at most " + std::to_string(most) + " steps fit";
}

ReproduceExportResult checkReproduceFolder(const std::string& directory, bool force) {
  ReproduceExportResult result;
  if (directory.empty()) {
    result.error = "no folder given";
    return result;
  }
  const reproduce::FolderClaim claim = reproduce::inspectExportFolder(fs::path(directory), force, &result.error);
  result.foreignEntries = claim.foreignEntries;
  result.foreignCount = claim.foreignCount;
  result.ok = claim.ok;
  return result;
}

ReproduceExportResult exportReproduction(const RunConfig& config, int64_t steps, const std::string& directory,
                                         const std::vector<StepRecord>& recorded, bool force) {
  ReproduceExportResult result;
  if (steps < 1) {
    result.error = "steps must be at least 1 (got " + std::to_string(steps) + ")";
    return result;
  }
  const auto errors = validate(config);
  if (!errors.empty()) {
    result.error = "invalid configuration: " + errors.front().field + " " + errors.front().message;
    return result;
  }
  if (const std::string tooLarge = reproduceSizeProblem(config, steps); !tooLarge.empty()) {
    result.error = tooLarge;
    return result;
  }
  if (directory.empty()) {
    result.error = "no folder given";
    return result;
  }
  const fs::path root(directory);
  std::string error;
  auto fail = [&](const std::string& why) {
    result.error = why;
    return result;
  };
  const reproduce::FolderClaim claim = reproduce::claimExportFolder(root, force, &error);
  result.foreignEntries = claim.foreignEntries;
  result.foreignCount = claim.foreignCount;
  if (!claim.ok) return fail(error);

  auto record = [&](const std::string& relative) {
    result.files.push_back(relative);
    std::error_code sizeError;
    const auto size = fs::file_size(root / relative, sizeError);
    if (!sizeError) result.bytes += static_cast<int64_t>(size);
  };
  record(reproduce::kMarkerFile);
  try {
    Comparison comparison(config);

    std::vector<std::pair<std::string, std::vector<int64_t>>> parameters;
    for (const auto& tensor : comparison.initialParameters()) {
      parameters.emplace_back(tensor.name, tensor.shape);
      const std::string relative = reproduce::weightFile(tensor.name);
      if (!reproduce::isReplaceableFile(root / relative, &error)) return fail(error);
      if (!writeNpyFloat32((root / relative).string(), tensor.shape, tensor.values, &error)) {
        return fail(error);
      }
      record(relative);
    }

    std::vector<std::string> batchNames;
    for (const auto& tensor : stackedBatches(comparison, steps)) {
      batchNames.push_back(tensor.name);
      const std::string relative = reproduce::batchFile(tensor.name);
      const std::string path = (root / relative).string();
      if (!reproduce::isReplaceableFile(root / relative, &error)) return fail(error);
      const bool isInt = tensor.values.empty() && !tensor.intValues.empty();
      const bool ok = isInt ? writeNpyInt64(path, tensor.shape, tensor.intValues, &error)
                            : writeNpyFloat32(path, tensor.shape, tensor.values, &error);
      if (!ok) return fail(error);
      record(relative);
    }

    // The FP16/BF16 modes the run took emulated; the quantised modes are always emulated (run.py knows).
    std::vector<PrecisionMode> emulated;
    for (const ModeCapability& capability : comparison.capabilities()) {
      const PrecisionMode m = capability.mode;
      const bool lowPrecision = m == PrecisionMode::FP16AmpScaled || m == PrecisionMode::FP16Amp ||
                                m == PrecisionMode::BF16Amp || m == PrecisionMode::FP16Pure ||
                                m == PrecisionMode::BF16Pure;
      if (lowPrecision && !capability.native) emulated.push_back(m);
    }
    const std::string script = reproduceScript(config, steps, parameters, batchNames, emulated);
    if (!reproduce::writeTextFile(root / "run.py", script, &error)) return fail(error);
    std::error_code permError;
    fs::permissions(root / "run.py", fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                    fs::perm_options::add, permError);
    record("run.py");

    const bool withReference = !recorded.empty();
    if (withReference) {
      if (!reproduce::writeTextFile(root / "ampscope_loss.csv", lossCsv(recorded, steps), &error)) {
        return fail(error);
      }
      record("ampscope_loss.csv");
    } else if (claim.adopted) {
      // A folder the export was let into keeps every file, but a loss file run.py would compare against
      // is the export's own name: one found there is overwritten by a reference without rows.
      std::error_code existsError;
      if (fs::exists(fs::symlink_status(root / "ampscope_loss.csv", existsError))) {
        if (!reproduce::writeTextFile(root / "ampscope_loss.csv", lossCsv({}, steps), &error)) return fail(error);
        record("ampscope_loss.csv");
      }
    } else {
      // A stale one from an earlier export would mislead.
      std::error_code removeError;
      fs::remove(root / "ampscope_loss.csv", removeError);
    }

    if (!reproduce::writeTextFile(root / "README.txt", reproduce::readmeText(config, steps, withReference),
                                  &error)) {
      return fail(error);
    }
    record("README.txt");
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  result.ok = true;
  return result;
}

}  // namespace ampscope
