#include "ampscope/engine/reproduce_export.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "ampscope/engine/comparison.h"
#include "ampscope/engine/version.h"
#include "models/tiny_transformer.h"

namespace ampscope {
namespace {

namespace fs = std::filesystem;

// NPY v1.0 aligns the start of the data to 64 bytes (numpy >= 1.14 writes 64; readers accept any).
constexpr size_t kNpyAlignment = 64;
// A v1.0 header length is a uint16: larger headers need format 2.0, which no shape here comes near.
constexpr size_t kNpyMaxHeader = 65535;
// The magic and version bytes plus the two length bytes.
constexpr size_t kNpyPreamble = 10;

int64_t elementCount(const std::vector<int64_t>& shape) {
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  return count;
}

std::string shapeTuple(const std::vector<int64_t>& shape) {
  // Python's tuple repr: () for 0-d, (n,) for 1-d, (a, b) otherwise.
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(shape[i]);
  }
  if (shape.size() == 1) text += ",";
  return text + ")";
}

template <typename T>
bool writeNpy(const std::string& path, const char* descr, const std::vector<int64_t>& shape,
              const std::vector<T>& values, std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error) *error = path + ": " + why;
    return false;
  };
  for (int64_t d : shape) {
    if (d < 0) return fail("negative dimension in shape " + shapeTuple(shape));
  }
  if (static_cast<int64_t>(values.size()) != elementCount(shape)) {
    return fail("shape " + shapeTuple(shape) + " needs " + std::to_string(elementCount(shape)) +
                " values, got " + std::to_string(values.size()));
  }
  std::string header;
  try {
    header = npyHeader(descr, shape);
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return fail(std::string("cannot open for writing: ") + std::strerror(errno));
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  // The data is little-endian ('<' in descr); x86-64 and aarch64 Linux are little-endian hosts.
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "float32 or int64");
  out.write(reinterpret_cast<const char*>(values.data()),
            static_cast<std::streamsize>(values.size() * sizeof(T)));
  out.close();
  if (!out) return fail(std::string("write failed: ") + std::strerror(errno));
  return true;
}

// The shortest text that reads back as the same double (std::to_chars): 0.9, not 0.90000000000000002.
std::string shortest(double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

// Python literal of a double that reads back as the same double.
std::string pyFloat(double value) {
  if (std::isnan(value)) return "float('nan')";
  if (std::isinf(value)) return value > 0 ? "float('inf')" : "float('-inf')";
  std::string text = shortest(value);
  if (text.find_first_of(".eE") == std::string::npos) text += ".0";
  return text;
}

std::string pyString(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + "'";
}

// File names for tensors: the state_dict name is kept ("net.0.weight.npy") so a student sees which is
// which; anything outside [A-Za-z0-9._-] becomes '_'.
std::string fileStem(const std::string& name) {
  std::string stem;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    stem += ok ? c : '_';
  }
  return stem.empty() ? std::string("tensor") : stem;
}

std::string scriptTemplate();

void replaceAll(std::string& text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

std::string mlpTemplate();
std::string transformerTemplate();

std::string shapeDim(const std::map<std::string, std::vector<int64_t>>& shapes, const std::string& name,
                     size_t rank, size_t dim) {
  const auto it = shapes.find(name);
  if (it == shapes.end() || it->second.size() != rank) {
    throw std::runtime_error("the engine's parameters lack '" + name + "' of rank " + std::to_string(rank) +
                             "; the PyTorch model could not be sized");
  }
  return std::to_string(it->second[dim]);
}

// The Python model matching the engine's, sized from the exported parameter shapes. run.py checks the
// state_dict names and shapes against the export before it loads anything.
std::string modelCode(const RunConfig& config,
                      const std::vector<std::pair<std::string, std::vector<int64_t>>>& parameters) {
  const std::map<std::string, std::vector<int64_t>> shapes(parameters.begin(), parameters.end());
  if (config.model == ModelKind::TinyMLP || config.model == ModelKind::DeepMLP) {
    // net.0, net.2, ... are the Linear layers (nn.Sequential numbering, a GELU between them).
    std::string sizes;
    for (int index = 0; shapes.count("net." + std::to_string(index) + ".weight") > 0; index += 2) {
      const std::string name = "net." + std::to_string(index) + ".weight";
      if (index == 0) sizes = shapeDim(shapes, name, 2, 1);
      sizes += ", " + shapeDim(shapes, name, 2, 0);
    }
    if (sizes.empty()) throw std::runtime_error("the engine's MLP has no parameter net.0.weight");
    std::string code = mlpTemplate();
    replaceAll(code, "{{CLASS}}", config.model == ModelKind::TinyMLP ? "TinyMLP" : "DeepMLP");
    replaceAll(code, "{{SIZES}}", sizes);
    return code;
  }
  int blocks = 0;
  while (shapes.count("blocks." + std::to_string(blocks) + ".ln1.weight") > 0) ++blocks;
  // The head count is the one size the shapes do not tell: it is the engine's own option.
  const detail::TinyTransformer::Options engineOptions;
  std::string args = "vocab=" + shapeDim(shapes, "tok_emb.weight", 2, 0) +
                     ", context=" + shapeDim(shapes, "pos_emb", 2, 0) +
                     ", d_model=" + shapeDim(shapes, "tok_emb.weight", 2, 1) +
                     ", heads=" + std::to_string(engineOptions.heads) + ", blocks=" + std::to_string(blocks) +
                     ", mlp_hidden=" + shapeDim(shapes, "blocks.0.mlp.0.weight", 2, 0);
  std::string code = transformerTemplate();
  replaceAll(code, "{{ARGS}}", args);
  return code;
}

std::string configLiteral(const RunConfig& config, int64_t steps,
                          const std::vector<std::pair<std::string, std::vector<int64_t>>>& parameters,
                          const std::vector<std::string>& batchTensorNames) {
  std::ostringstream py;
  py << "{\n";
  py << "    'ampscope_version': " << pyString(ampscopeVersion()) << ",\n";
  py << "    'model': " << pyString(modelName(config.model)) << ",\n";
  py << "    'modes': [";
  for (size_t i = 0; i < config.modes.size(); ++i) {
    py << (i ? ", " : "") << pyString(modeName(config.modes[i]));
  }
  py << "],\n";
  py << "    'steps': " << steps << ",\n";
  py << "    'seed': " << config.seed << ",\n";
  py << "    'batch_size': " << config.batchSize << ",\n";
  py << "    'optimizer': " << pyString(optimizerName(config.optimizer)) << ",\n";
  py << "    'lr': " << pyFloat(config.lr) << ",\n";
  py << "    'momentum': " << pyFloat(config.momentum) << ",  # SGD only\n";
  py << "    'weight_decay': " << pyFloat(config.weightDecay) << ",  # AdamW's decoupled weight decay\n";
  py << "    'sgd_weight_decay': 0.0,  # AmpScope's SGD has none\n";
  py << "    'adam_eps': " << pyFloat(config.adamEps) << ",\n";
  py << "    'loss_weight': " << pyFloat(config.lossWeight) << ",  # loss * this before backward\n";
  py << "    'scaler': {'init_scale': " << pyFloat(config.scaler.initScale)
     << ", 'growth_factor': " << pyFloat(config.scaler.growthFactor)
     << ", 'backoff_factor': " << pyFloat(config.scaler.backoffFactor)
     << ", 'growth_interval': " << config.scaler.growthInterval
     << ", 'enabled': " << (config.scaler.enabled ? "True" : "False") << "},\n";
  py << "    'scaler_for_pure_fp16': " << (config.scalerForPureFp16 ? "True" : "False") << ",\n";
  py << "    'clip_order': " << pyString(clipOrderName(config.clipOrder)) << ",\n";
  py << "    'clip_max_norm': " << pyFloat(config.clipMaxNorm) << ",\n";
  py << "    'threads': " << config.threadsPerMode << ",\n";
  py << "    # (state_dict name, file) in the engine's order\n";
  py << "    'parameters': [\n";
  for (const auto& [name, shape] : parameters) {
    py << "        (" << pyString(name) << ", " << pyString("weights/" + fileStem(name) + ".npy") << "),  # "
       << shapeTuple(shape) << "\n";
  }
  py << "    ],\n";
  py << "    # (name, file): every step's tensors stacked along a first axis of length 'steps'\n";
  py << "    'batch': [\n";
  for (const auto& name : batchTensorNames) {
    py << "        (" << pyString(name) << ", " << pyString("batches/" + fileStem(name) + ".npy") << "),\n";
  }
  py << "    ],\n";
  py << "}";
  return py.str();
}

bool writeText(const fs::path& path, const std::string& text, std::string* error) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    *error = path.string() + ": cannot open for writing: " + std::strerror(errno);
    return false;
  }
  out << text;
  out.close();
  if (!out) {
    *error = path.string() + ": write failed";
    return false;
  }
  return true;
}

std::string readmeText(const RunConfig& config, int64_t steps, bool withReference) {
  std::ostringstream text;
  text << "Reproduce in PyTorch - exported by AmpScope " << ampscopeVersion() << "\n"
       << std::string(60, '=') << "\n\n"
       << "This folder reruns an AmpScope experiment in plain PyTorch: the same model, the same initial\n"
       << "weights, the same batches, the same optimizer and precision modes.\n\n"
       << "  model      " << modelName(config.model) << "\n"
       << "  modes      ";
  for (size_t i = 0; i < config.modes.size(); ++i) text << (i ? ", " : "") << modeName(config.modes[i]);
  text << "\n  steps      " << steps << " (batch " << config.batchSize << ", seed " << config.seed << ")\n"
       << "  optimizer  " << optimizerName(config.optimizer) << " lr " << config.lr << "\n\n"
       << "Run it\n------\n"
       << "  python3 run.py                 every exported step and mode, on the CPU\n"
       << "  python3 run.py --steps 50      fewer steps\n"
       << "  python3 run.py --modes fp32    some of the modes\n"
       << "  python3 run.py --device cuda   on a GPU: real FP16 autocast and GradScaler\n\n"
       << "It needs Python 3, numpy and PyTorch (1.13 or newer; on Debian: apt install python3-torch,\n"
       << "then use /usr/bin/python3). It prints each step's loss and writes pytorch_loss.csv\n"
       << "(step,mode,loss,loss_scale,skipped).";
  if (withReference) {
    text << " ampscope_loss.csv holds the losses AmpScope recorded; run.py\n"
         << "prints the largest difference per mode.";
  }
  text << "\n\nFiles\n-----\n"
       << "  run.py                the script (the configuration is the CONFIG dict at its top)\n"
       << "  weights/NAME.npy      initial value of each parameter, float32, named as in state_dict()\n"
       << "  batches/NAME.npy      every step's batch, stacked: the first axis is the step (0 = step 1)\n";
  if (withReference) text << "  ampscope_loss.csv     AmpScope's loss per step and mode\n";
  text << "\nThe .npy files are NumPy's NPY format 1.0: np.load() reads them.\n\n"
       << "How each precision mode runs\n----------------------------\n"
       << "  fp32             float32 everywhere.\n"
       << "  bf16-amp         torch.autocast(device, dtype=torch.bfloat16) around forward and loss.\n"
       << "  bf16-pure        model.to(torch.bfloat16): parameters, gradients and update in bfloat16.\n"
       << "  fp16-amp         torch.autocast(dtype=torch.float16), no GradScaler.\n"
       << "  fp16-amp-scaled  the same plus GradScaler (init_scale, growth/backoff factors and interval\n"
       << "                   as configured in AmpScope).\n"
       << "  fp16-pure        model.half(): parameters, gradients and update in float16.\n\n"
       << "FP16 on a CPU: PyTorch's CPU autocast supports bfloat16 only, and FP16 matrix products,\n"
       << "GELU, log_softmax and AdamW have no FP16 CPU kernels in PyTorch 1.13. On a CPU run.py\n"
       << "therefore EMULATES the FP16 modes the way AmpScope does: float32 arithmetic, with values\n"
       << "rounded exactly (round-to-nearest-even, via Tensor.half()) to float16 wherever a real FP16\n"
       << "run holds float16 data, and the gradients flowing back through those points rounded too.\n"
       << "  fp16-amp(-scaled): the casts of CUDA autocast - inputs, weight and bias of Linear and\n"
       << "    matmul and their outputs are float16; softmax, layer_norm and cross_entropy run in\n"
       << "    float32; GELU, additions and scalar products stay float16 when their inputs are.\n"
       << "  fp16-pure: every op's output is float16, and so is every in-place op of the optimizer's\n"
       << "    update (as torch.optim does on float16 tensors: AdamW's eps = 1e-8 rounds to 0 there).\n"
       << "The GradScaler there is a small class in run.py with torch's rule (torch's own GradScaler\n"
       << "works on CUDA only and refuses FP16 gradients). run.py says for each mode what it uses when\n"
       << "it starts. Pass --no-emulation to refuse FP16 modes on a CPU instead; --device cuda runs\n"
       << "them natively.\n\n"
       << "How close to AmpScope?\n----------------------\n"
       << "On a CPU run.py does what AmpScope does, op for op, with the same weights and batches. With\n"
       << "Debian's python3-torch (the same LibTorch 1.13 that AmpScope uses) the losses come out\n"
       << "identical to the last bit. With another PyTorch, BLAS or thread count the order in which\n"
       << "kernels sum changes the last bits: expect fp32 to agree to about 1e-6, and low-precision\n"
       << "modes to drift further over many steps, because training amplifies each rounding change.\n"
       << "On CUDA the FP16 modes are real FP16 kernels: close to, not identical with, the emulation.\n";
  return text.str();
}

}  // namespace

std::string npyHeader(const std::string& descr, const std::vector<int64_t>& shape) {
  std::string dict =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shapeTuple(shape) + ", }";
  // Pad with spaces so that preamble + dict + '\n' is a multiple of 64.
  const size_t unpadded = kNpyPreamble + dict.size() + 1;
  const size_t padding = (kNpyAlignment - unpadded % kNpyAlignment) % kNpyAlignment;
  dict.append(padding, ' ');
  dict += '\n';
  if (dict.size() > kNpyMaxHeader) {
    throw std::invalid_argument("NPY header of " + std::to_string(dict.size()) +
                                " bytes does not fit format 1.0");
  }
  std::string out = "\x93NUMPY";
  out += static_cast<char>(1);                   // major version
  out += static_cast<char>(0);                   // minor version
  out += static_cast<char>(dict.size() & 0xff);  // header length, little-endian uint16
  out += static_cast<char>((dict.size() >> 8) & 0xff);
  return out + dict;
}

bool writeNpyFloat32(const std::string& path, const std::vector<int64_t>& shape,
                     const std::vector<float>& values, std::string* error) {
  return writeNpy(path, "<f4", shape, values, error);
}

bool writeNpyInt64(const std::string& path, const std::vector<int64_t>& shape,
                   const std::vector<int64_t>& values, std::string* error) {
  return writeNpy(path, "<i8", shape, values, error);
}

std::string reproduceScript(const RunConfig& config, int64_t steps,
                            const std::vector<std::pair<std::string, std::vector<int64_t>>>& parameters,
                            const std::vector<std::string>& batchTensorNames) {
  std::string script = scriptTemplate();
  replaceAll(script, "{{MODEL}}", modelCode(config, parameters));
  replaceAll(script, "{{CONFIG}}", configLiteral(config, steps, parameters, batchTensorNames));
  return script;
}

ReproduceExportResult exportReproduction(const RunConfig& config, int64_t steps, const std::string& directory,
                                         const std::vector<StepRecord>& recorded) {
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
  if (directory.empty()) {
    result.error = "no folder given";
    return result;
  }
  const fs::path root(directory);
  std::error_code ec;
  fs::create_directories(root / "weights", ec);
  if (!ec) fs::create_directories(root / "batches", ec);
  if (ec) {
    result.error = root.string() + ": cannot create the folder: " + ec.message();
    return result;
  }

  std::string error;
  auto record = [&](const std::string& relative) {
    result.files.push_back(relative);
    std::error_code sizeError;
    const auto size = fs::file_size(root / relative, sizeError);
    if (!sizeError) result.bytes += static_cast<int64_t>(size);
  };
  try {
    Comparison comparison(config);

    std::vector<std::pair<std::string, std::vector<int64_t>>> parameters;
    for (const auto& tensor : comparison.initialParameters()) {
      parameters.emplace_back(tensor.name, tensor.shape);
      const std::string relative = "weights/" + fileStem(tensor.name) + ".npy";
      if (!writeNpyFloat32((root / relative).string(), tensor.shape, tensor.values, &error)) {
        result.error = error;
        return result;
      }
      record(relative);
    }

    // Stack every step's tensors: one array per batch tensor with a leading step axis. The first
    // step's tensors fix the names, dtypes and shapes; a later step that differs is an engine bug.
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
    std::vector<std::string> batchNames;
    for (const auto& tensor : stacked) {
      batchNames.push_back(tensor.name);
      const std::string relative = "batches/" + fileStem(tensor.name) + ".npy";
      const std::string path = (root / relative).string();
      const bool isInt = tensor.values.empty() && !tensor.intValues.empty();
      const bool ok = isInt ? writeNpyInt64(path, tensor.shape, tensor.intValues, &error)
                            : writeNpyFloat32(path, tensor.shape, tensor.values, &error);
      if (!ok) {
        result.error = error;
        return result;
      }
      record(relative);
    }

    if (!writeText(root / "run.py", reproduceScript(config, steps, parameters, batchNames), &error)) {
      result.error = error;
      return result;
    }
    std::error_code permError;
    fs::permissions(root / "run.py", fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                    fs::perm_options::add, permError);
    record("run.py");

    bool withReference = false;
    if (!recorded.empty()) {
      std::ostringstream csv;
      csv << "step,mode,loss\n";
      for (const auto& stepRecord : recorded) {
        if (stepRecord.step > steps) continue;
        for (const auto& mode : stepRecord.modes) {
          // Python's float() reads nan, inf and -inf as well.
          const std::string loss = std::isnan(mode.loss)   ? std::string("nan")
                                   : std::isinf(mode.loss) ? std::string(mode.loss > 0 ? "inf" : "-inf")
                                                           : shortest(mode.loss);
          csv << mode.step << ',' << modeName(mode.mode) << ',' << loss << '\n';
        }
      }
      if (!writeText(root / "ampscope_loss.csv", csv.str(), &error)) {
        result.error = error;
        return result;
      }
      record("ampscope_loss.csv");
      withReference = true;
    } else {
      fs::remove(root / "ampscope_loss.csv", ec);  // a stale one from an earlier export would mislead
    }

    if (!writeText(root / "README.txt", readmeText(config, steps, withReference), &error)) {
      result.error = error;
      return result;
    }
    record("README.txt");
  } catch (const std::exception& e) {
    result.error = e.what();
    return result;
  }
  result.ok = true;
  return result;
}

namespace {

// run.py with two placeholders: {{CONFIG}} (a Python dict literal) and {{MODEL}} (the nn.Module and
// build_model()).
std::string scriptTemplate() {
  return R"PY(#!/usr/bin/env python3
"""Reproduce an AmpScope run in PyTorch.

Written by AmpScope's "Reproduce in PyTorch" export. It trains the same model from the same initial
weights on the same batches as the app did, with torch.autocast / GradScaler as the chapter writes them,
and prints the loss of every step (and writes it as CSV), so the numbers can be compared with the app's.

    python3 run.py                      # every exported step, every mode
    python3 run.py --steps 50 --modes fp32,bf16-amp
    python3 run.py --device cuda        # real FP16 autocast and GradScaler on a GPU

See README.txt next to this file for what each precision mode does on a CPU-only PyTorch.
"""
import argparse
import csv
import ctypes
import math
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch import Tensor

HERE = os.path.dirname(os.path.abspath(__file__))

# The run as AmpScope had it configured.
CONFIG = {{CONFIG}}


# ---------------------------------------------------------------------------------------------------
# FP16 on a CPU-only PyTorch.
#
# CPU autocast accepts only bfloat16, and FP16 matmuls have no CPU kernel. So on a CPU the FP16 modes
# run *emulated*, exactly as AmpScope does on such a machine: float32 arithmetic, with values rounded to
# the nearest float16 (IEEE round-to-nearest-even, through Tensor.half()) where a real FP16 run would
# hold float16 data, and the gradients flowing back through the same points rounded too. A value too
# small for float16 becomes 0 there (underflow), one too large becomes inf (overflow).
#   fp16-amp(-scaled): as CUDA autocast does: Linear and matmul take float16 inputs, weight and bias
#     and give a float16 output; softmax, layer_norm and cross_entropy run in float32; GELU, additions
#     and scalar products stay float16 when their inputs are.
#   fp16-pure: as model.half(): every op's output is float16, and so is every in-place op of the
#     optimizer's update (HalfAdamW, HalfSGD below).
# On a CUDA device the same modes use real torch.autocast(dtype=torch.float16) / model.half().
# ---------------------------------------------------------------------------------------------------
class RoundToHalf(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x: Tensor) -> Tensor:
        return x.half().float()

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        return grad.half().float()


def r16(x: Tensor) -> Tensor:
    return RoundToHalf.apply(x)


def is_low(t: Tensor) -> bool:
    return t.dtype in (torch.float16, torch.bfloat16)


class Ops:
    """The ops the models are written in. For every mode but the emulated ones these are the plain
    torch functions (autocast, if active, picks their precision); `emulation` is None, "amp" or "pure".
    Activations travel as (tensor, low) pairs: low says the values are already float16 ones."""

    def __init__(self, emulation=None):
        self.emulation = emulation

    def _param(self, p: Tensor) -> Tensor:
        return r16(p) if self.emulation else p

    def _low_in(self, x, low: bool) -> Tensor:
        return r16(x) if self.emulation == "amp" and not low else x

    def _out(self, y: Tensor, inputs_low: bool = True):
        if self.emulation and inputs_low:
            return r16(y), True
        return y, is_low(y)

    def input(self, x: Tensor):
        if self.emulation == "pure":
            return x.half().float(), True  # model.half() callers pass x.half()
        return x, is_low(x)

    def linear(self, x, layer: nn.Linear):
        t, low = x
        if not self.emulation:
            return self._out(F.linear(t, layer.weight, layer.bias))
        bias = None if layer.bias is None else self._param(layer.bias)
        return self._out(F.linear(self._low_in(t, low), self._param(layer.weight), bias))

    def matmul(self, a, b):
        return self._out(torch.matmul(self._low_in(*a), self._low_in(*b)), self.emulation is not None)

    def gelu(self, x):
        return self._out(F.gelu(x[0]), x[1])

    def add(self, a, b):
        return self._out(a[0] + b[0], a[1] and b[1])

    def mul(self, x, factor: float):
        return self._out(x[0] * factor, x[1])

    def masked_fill(self, x, mask: Tensor, value: float):
        return x[0].masked_fill(mask, value), x[1]  # -inf is exact in every format

    def softmax(self, x, dim: int):
        if self.emulation == "pure":
            return self._out(torch.softmax(x[0], dim))
        return self._out(torch.softmax(x[0], dim), False)

    def layer_norm(self, x, ln: nn.LayerNorm):
        if self.emulation == "pure":
            return self._out(F.layer_norm(x[0], ln.normalized_shape, self._param(ln.weight),
                                          self._param(ln.bias), ln.eps))
        return self._out(F.layer_norm(x[0], ln.normalized_shape, ln.weight, ln.bias, ln.eps), False)

    def embedding(self, weight: Tensor, ids: Tensor):
        if self.emulation == "pure":
            return F.embedding(ids, self._param(weight)), True
        out = F.embedding(ids, weight)
        return out, is_low(out)

    def cross_entropy(self, logits, targets: Tensor) -> Tensor:
        t, low = logits
        t = t.reshape(-1, t.size(-1))
        targets = targets.reshape(-1)
        if self.emulation == "pure":
            log_probs = self._out(F.log_softmax(t, 1))
            return self._out(F.nll_loss(log_probs[0], targets))[0]
        return F.cross_entropy(t, targets)

    def weight_loss(self, loss: Tensor, weight: float) -> Tensor:
        if weight == 1.0:
            return loss
        return r16(loss * weight) if self.emulation == "pure" else loss * weight


PLAIN = Ops()


{{MODEL}}


# ---------------------------------------------------------------------------------------------------
# GradScaler. torch.cuda.amp.GradScaler (torch.amp.GradScaler in newer releases) only works on CUDA and
# refuses FP16 gradients. Where it cannot serve (CPU emulation, model.half() with a scaler) this class
# applies the same rule: scale the loss; unscale by multiplying with the float32 reciprocal; a non-finite
# gradient skips optimizer.step() and multiplies the scale by backoff_factor; growth_interval clean steps
# in a row multiply it by growth_factor (unless that would reach inf). The scale is a float32 value.
# ---------------------------------------------------------------------------------------------------
class PortableGradScaler:
    def __init__(self, init_scale, growth_factor, backoff_factor, growth_interval, enabled=True):
        self.scale_ = torch.tensor(init_scale, dtype=torch.float32)
        self.growth_factor = growth_factor
        self.backoff_factor = backoff_factor
        self.growth_interval = growth_interval
        self.enabled = enabled
        self.tracker = 0
        self.unscaled = False
        self.found_inf = False

    def scale(self, loss: Tensor) -> Tensor:
        return loss * self.scale_.to(loss.device) if self.enabled else loss

    def unscale_(self, optimizer) -> None:
        if not self.enabled or self.unscaled:
            return
        inv = self.scale_.double().reciprocal().float()
        found = False
        for group in optimizer.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if not torch.isfinite(p.grad).all():
                    found = True
                p.grad.mul_(inv.to(p.grad.device, p.grad.dtype))
        self.found_inf = found
        self.unscaled = True

    def step(self, optimizer) -> bool:
        if not self.enabled:
            optimizer.step()
            return True
        self.unscale_(optimizer)
        if not self.found_inf:
            optimizer.step()
        return not self.found_inf

    def update(self) -> None:
        if not self.enabled:
            return
        if self.found_inf:
            self.scale_ = (self.scale_ * self.backoff_factor).float()
            self.tracker = 0
        else:
            self.tracker += 1
            if self.tracker == self.growth_interval:
                grown = (self.scale_ * self.growth_factor).float()
                if torch.isfinite(grown):
                    self.scale_ = grown
                self.tracker = 0
        self.unscaled = False
        self.found_inf = False

    def get_scale(self) -> float:
        return float(self.scale_) if self.enabled else 1.0


def make_grad_scaler(device: torch.device, native: bool):
    s = CONFIG["scaler"]
    args = dict(init_scale=s["init_scale"], growth_factor=s["growth_factor"],
                backoff_factor=s["backoff_factor"], growth_interval=s["growth_interval"],
                enabled=s["enabled"])
    if native and device.type == "cuda":
        if hasattr(torch, "amp") and hasattr(torch.amp, "GradScaler"):
            return torch.amp.GradScaler("cuda", **args), "torch.amp.GradScaler"
        return torch.cuda.amp.GradScaler(**args), "torch.cuda.amp.GradScaler"
    return PortableGradScaler(**args), "PortableGradScaler (same rule as torch's GradScaler)"


# ---------------------------------------------------------------------------------------------------
# Data exported by AmpScope: float32 / int64 .npy files.
# ---------------------------------------------------------------------------------------------------
def load_initial_state(model: nn.Module) -> None:
    state = {name: torch.from_numpy(np.load(os.path.join(HERE, path)))
             for name, path in CONFIG["parameters"]}
    own = model.state_dict()
    if set(own) != set(state):
        sys.exit("run.py: the exported parameters %s do not match the model's %s"
                 % (sorted(state), sorted(own)))
    for name, tensor in state.items():
        if tuple(own[name].shape) != tuple(tensor.shape):
            sys.exit("run.py: %s has shape %s in the export but %s in the model"
                     % (name, tuple(tensor.shape), tuple(own[name].shape)))
    model.load_state_dict(state)


def load_batches():
    return [np.load(os.path.join(HERE, path), mmap_mode="r") for _, path in CONFIG["batch"]]


def make_optimizer(model: nn.Module, emulate_half: bool = False):
    if CONFIG["optimizer"] == "sgd":
        cls = HalfSGD if emulate_half else optim.SGD
        return cls(model.parameters(), lr=CONFIG["lr"], momentum=CONFIG["momentum"],
                   weight_decay=CONFIG["sgd_weight_decay"])
    cls = HalfAdamW if emulate_half else optim.AdamW
    return cls(model.parameters(), lr=CONFIG["lr"], eps=CONFIG["adam_eps"],
               weight_decay=CONFIG["weight_decay"])


# ---------------------------------------------------------------------------------------------------
# torch.optim on model.half() parameters, emulated on a CPU: float32 tensors that hold float16 values,
# and every in-place op of the optimizer's update rounded to float16, as it is when the tensors are
# float16 (the kernels compute in float32 and round once when they store). The op sequence is that of
# torch 1.13's single-tensor AdamW / SGD. So an update smaller than half a float16 ulp is lost, and
# AdamW's eps = 1e-8 rounds to 0 in float16: where v underflows, the update divides by zero - the
# well-known failure of model.half() with Adam.
# ---------------------------------------------------------------------------------------------------
def h(t: Tensor) -> Tensor:
    """Rounds a float32 tensor in place to the nearest float16 value."""
    return t.copy_(t.half().float())


class HalfAdamW(optim.AdamW):
    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            lr, (beta1, beta2) = group["lr"], group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = h(p.grad.clone())
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(p)
                    state["exp_avg_sq"] = torch.zeros_like(p)
                state["step"] += 1
                m, v, t = state["exp_avg"], state["exp_avg_sq"], state["step"]
                if group["weight_decay"] != 0:
                    h(p.mul_(1 - lr * group["weight_decay"]))
                h(m.mul_(beta1))
                h(m.add_(grad, alpha=1 - beta1))
                h(v.mul_(beta2))
                h(v.addcmul_(grad, grad, value=1 - beta2))
                denom = h(v.sqrt())
                h(denom.div_(math.sqrt(1 - beta2 ** t)))
                h(denom.add_(group["eps"]))
                h(p.addcdiv_(m, denom, value=-lr / (1 - beta1 ** t)))


class HalfSGD(optim.SGD):
    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                direction = h(p.grad.clone())
                if group["weight_decay"] != 0:
                    h(direction.add_(p, alpha=group["weight_decay"]))
                if group["momentum"] != 0:
                    state = self.state[p]
                    if "momentum_buffer" not in state:
                        state["momentum_buffer"] = direction.clone()
                    else:
                        buffer = state["momentum_buffer"]
                        h(buffer.mul_(group["momentum"]))
                        h(buffer.add_(direction))
                        direction = buffer
                h(p.add_(direction, alpha=-group["lr"]))


# ---------------------------------------------------------------------------------------------------
# One mode: how it is set up, and one training step in the chapter's order.
# ---------------------------------------------------------------------------------------------------
class ModeRun:
    def __init__(self, mode: str, device: torch.device, allow_emulation: bool):
        self.mode = mode
        self.device = device
        self.model = build_model().to(device)
        load_initial_state(self.model)
        cpu = device.type != "cuda"
        fp16 = mode in ("fp16-amp-scaled", "fp16-amp", "fp16-pure")
        if fp16 and cpu and not allow_emulation:
            raise RuntimeError("%s: FP16 autocast is not available on this CPU build of PyTorch %s "
                               "(CPU autocast supports bfloat16 only); run with --device cuda, or drop "
                               "--no-emulation to use the FP16 emulation described in README.txt"
                               % (mode, torch.__version__))
        self.ops = PLAIN
        self.autocast_dtype = None
        self.input_dtype = None
        self.emulated_pure = False
        if mode in ("fp16-amp-scaled", "fp16-amp"):
            if cpu:
                self.ops = Ops(emulation="amp")
                self.note = "FP16 autocast EMULATED (float32 math, exact rounding to float16)"
            else:
                self.autocast_dtype = torch.float16
                self.note = "torch.autocast('cuda', dtype=torch.float16)"
        elif mode == "bf16-amp":
            self.autocast_dtype = torch.bfloat16
            self.note = "torch.autocast('%s', dtype=torch.bfloat16)" % device.type
        elif mode == "fp16-pure":
            if cpu:
                self.ops = Ops(emulation="pure")
                self.emulated_pure = True
                with torch.no_grad():
                    for p in self.model.parameters():
                        p.copy_(p.half().float())
                self.note = "model.half() EMULATED (float32 math, every value rounded to float16)"
            else:
                self.model.half()
                self.input_dtype = torch.float16
                self.note = "model.half()"
        elif mode == "bf16-pure":
            self.model.to(torch.bfloat16)
            self.input_dtype = torch.bfloat16
            self.note = "model.to(torch.bfloat16)"
        else:
            self.note = "float32"
        self.optimizer = make_optimizer(self.model, emulate_half=self.emulated_pure)
        uses_scaler = mode == "fp16-amp-scaled" or (mode == "fp16-pure" and CONFIG["scaler_for_pure_fp16"])
        self.scaler = None
        if uses_scaler and CONFIG["scaler"]["enabled"]:
            # torch's GradScaler refuses FP16 gradients (model.half()); the portable one accepts them.
            native = mode == "fp16-amp-scaled" and not cpu
            self.scaler, name = make_grad_scaler(device, native)
            self.note += ", " + name
        self.diverged = False

    def forward_loss(self, inputs: Tensor, targets: Tensor) -> Tensor:
        if self.autocast_dtype is not None:
            # The chapter's pattern: autocast around forward and loss, not around backward.
            with torch.autocast(self.device.type, dtype=self.autocast_dtype):
                logits = self.model(inputs, self.ops)
                return self.ops.cross_entropy(logits, targets)
        logits = self.model(inputs, self.ops)
        return self.ops.cross_entropy(logits, targets)

    def step(self, inputs: Tensor, targets: Tensor):
        """One training step; returns (loss, loss scale used, skipped)."""
        if self.input_dtype is not None and inputs.is_floating_point():
            inputs = inputs.to(self.input_dtype)
        self.optimizer.zero_grad(set_to_none=True)
        scale = self.scaler.get_scale() if self.scaler is not None else 1.0
        loss = self.forward_loss(inputs, targets)
        value = float(loss.detach().float())
        if not math.isfinite(value) and self.scaler is None:
            self.diverged = True  # nothing recovers from a non-finite loss without a scaler
            return value, scale, False
        weighted = self.ops.weight_loss(loss, CONFIG["loss_weight"])
        clip = CONFIG["clip_order"]
        max_norm = CONFIG["clip_max_norm"]
        skipped = False
        if self.scaler is not None:
            self.scaler.scale(weighted).backward()
            if clip == "before-unscale":
                nn.utils.clip_grad_norm_(self.model.parameters(), max_norm)  # WRONG on purpose: scaled
            self.scaler.unscale_(self.optimizer)
            if clip == "after-unscale":
                nn.utils.clip_grad_norm_(self.model.parameters(), max_norm)  # the chapter's order
            before = self.scaler.get_scale()
            stepped = self.scaler.step(self.optimizer)
            self.scaler.update()
            # A skipped step is the one whose inf/NaN made update() back the scale off.
            skipped = (not stepped) if isinstance(self.scaler, PortableGradScaler) \
                else self.scaler.get_scale() < before
        else:
            weighted.backward()
            if clip != "off":
                nn.utils.clip_grad_norm_(self.model.parameters(), max_norm)
            self.optimizer.step()
        if not skipped and not all(torch.isfinite(p).all() for p in self.model.parameters()):
            self.diverged = True
        return value, scale, skipped


def set_blas_threads(n: int) -> None:
    """AmpScope gives OpenBLAS's own thread pool the same count as torch's intra-op threads
    (torch.set_num_threads does not reach it in 1.13). The count changes how matrix products are
    split and summed, and so the last bits of every result."""
    for name in ("libblas.so.3", "libopenblas.so.0"):
        try:
            ctypes.CDLL(name).openblas_set_num_threads(n)
            return
        except (OSError, AttributeError):
            continue


def main() -> int:
    parser = argparse.ArgumentParser(description="Rerun an AmpScope experiment in PyTorch.")
    parser.add_argument("--steps", type=int, default=CONFIG["steps"],
                        help="steps to train (at most the %d exported)" % CONFIG["steps"])
    parser.add_argument("--modes", default=",".join(CONFIG["modes"]),
                        help="comma-separated precision modes (default: the exported ones)")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"],
                        help="where to train (default cpu, as AmpScope does)")
    parser.add_argument("--no-emulation", action="store_true",
                        help="refuse FP16 modes on a CPU instead of emulating them")
    parser.add_argument("--csv", default=os.path.join(HERE, "pytorch_loss.csv"),
                        help="where to write step,mode,loss,loss_scale,skipped")
    parser.add_argument("--quiet", action="store_true", help="print only the summary")
    args = parser.parse_args()

    if args.steps < 1 or args.steps > CONFIG["steps"]:
        sys.exit("run.py: --steps must be between 1 and %d (the steps exported)" % CONFIG["steps"])
    modes = [m for m in args.modes.split(",") if m]
    for m in modes:
        if m not in ("fp32", "fp16-amp-scaled", "fp16-amp", "bf16-amp", "fp16-pure", "bf16-pure"):
            sys.exit("run.py: unknown mode '%s'" % m)
    if args.device == "cuda" and not torch.cuda.is_available():
        sys.exit("run.py: --device cuda, but this PyTorch %s sees no CUDA device" % torch.__version__)
    device = torch.device(args.device)
    # AmpScope trains each mode on its own thread with this many intra-op threads.
    torch.set_num_threads(CONFIG["threads"])
    set_blas_threads(CONFIG["threads"])
    torch.manual_seed(CONFIG["seed"])

    runs = []
    for m in modes:
        try:
            runs.append(ModeRun(m, device, allow_emulation=not args.no_emulation))
        except RuntimeError as error:
            print("run.py: skipping " + str(error), file=sys.stderr)
    if not runs:
        sys.exit("run.py: no mode can run here")
    print("PyTorch %s on %s, model %s, optimizer %s" % (torch.__version__, device, CONFIG["model"],
                                                        CONFIG["optimizer"]))
    for run in runs:
        print("  %-16s %s" % (run.mode, run.note))

    batches = load_batches()
    rows = []
    for step in range(1, args.steps + 1):
        tensors = [torch.from_numpy(np.array(b[step - 1])).to(device) for b in batches]
        inputs, targets = tensors[0], tensors[1]
        for run in runs:
            if run.diverged:
                continue
            loss, scale, skipped = run.step(inputs, targets)
            rows.append((step, run.mode, loss, scale, int(skipped)))
            if not args.quiet:
                print("step %d %s loss %.9g scale %g%s%s" % (step, run.mode, loss, scale,
                      " (skipped)" if skipped else "", " DIVERGED" if run.diverged else ""))

    with open(args.csv, "w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(["step", "mode", "loss", "loss_scale", "skipped"])
        for step, mode, loss, scale, skipped in rows:
            out.writerow([step, mode, repr(loss), repr(scale), skipped])
    print("wrote %s (%d rows)" % (args.csv, len(rows)))

    reference = os.path.join(HERE, "ampscope_loss.csv")
    if os.path.exists(reference):
        app = {}
        with open(reference, newline="") as f:
            for r in csv.DictReader(f):
                app[(int(r["step"]), r["mode"])] = float(r["loss"])
        for run in runs:
            diffs = [abs(loss - app[(step, mode)]) for step, mode, loss, _, _ in rows
                     if mode == run.mode and (step, mode) in app
                     and math.isfinite(loss) and math.isfinite(app[(step, mode)])]
            if diffs:
                worst = max(diffs)
                print("%-16s largest |loss(PyTorch) - loss(AmpScope)| over %d steps: %.3g"
                      % (run.mode, len(diffs), worst))
    return 0


if __name__ == "__main__":
    sys.exit(main())
)PY";
}

// The MLP models ({{CLASS}}, {{SIZES}}) and the Transformer ({{ARGS}}): class, build_model().
std::string mlpTemplate() {
  return R"PY(class {{CLASS}}(nn.Module):
    """Linear layers with GELU between them, as the chapter's TinyMLP: nn.Sequential under "net", so
    the state_dict names are net.0.weight, net.0.bias, net.2.weight, ..."""

    def __init__(self, *sizes: int) -> None:
        super().__init__()
        layers = []
        for i in range(len(sizes) - 1):
            layers.append(nn.Linear(sizes[i], sizes[i + 1]))
            if i + 2 < len(sizes):
                layers.append(nn.GELU())
        self.net = nn.Sequential(*layers)

    def forward(self, x: Tensor, ops: Ops = PLAIN):
        # With PLAIN ops this is self.net(x); the ops let the CPU FP16 emulation round where FP16 would.
        h = ops.input(x)
        for layer in self.net:
            h = ops.linear(h, layer) if isinstance(layer, nn.Linear) else ops.gelu(h)
        return h


def build_model() -> nn.Module:
    return {{CLASS}}({{SIZES}})
)PY";
}

std::string transformerTemplate() {
  return R"PY(class Block(nn.Module):
    """Pre-LayerNorm Transformer block: causal multi-head self-attention, then a GELU MLP."""

    def __init__(self, d_model: int, heads: int, mlp_hidden: int) -> None:
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = nn.Module()
        self.attn.qkv = nn.Linear(d_model, 3 * d_model)
        self.attn.proj = nn.Linear(d_model, d_model)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, mlp_hidden), nn.GELU(), nn.Linear(mlp_hidden, d_model))

    def forward(self, x, mask: Tensor, ops: Ops):
        batch, time, d_model = x[0].shape
        head_dim = d_model // self.heads
        qkv, low = ops.linear(ops.layer_norm(x, self.ln1), self.attn.qkv)
        q, k, v = qkv.view(batch, time, 3, self.heads, head_dim).permute(2, 0, 3, 1, 4)
        scores = ops.matmul((q, low), (k.transpose(-2, -1), low))
        scores = ops.mul(scores, 1.0 / math.sqrt(head_dim))
        scores = ops.masked_fill(scores, mask[:time, :time], float("-inf"))
        context, low = ops.matmul(ops.softmax(scores, -1), (v, low))
        merged = (context.transpose(1, 2).reshape(batch, time, d_model), low)
        x = ops.add(x, ops.linear(merged, self.attn.proj))
        h = ops.linear(ops.layer_norm(x, self.ln2), self.mlp[0])
        return ops.add(x, ops.linear(ops.gelu(h), self.mlp[2]))


class TinyTransformer(nn.Module):
    """AmpScope's tiny decoder-only character LM: token embedding + learned positions, pre-LN blocks,
    a final LayerNorm and a linear head over the vocabulary."""

    def __init__(self, vocab: int, context: int, d_model: int, heads: int, blocks: int,
                 mlp_hidden: int) -> None:
        super().__init__()
        self.tok_emb = nn.Embedding(vocab, d_model)
        self.pos_emb = nn.Parameter(torch.zeros(context, d_model))
        self.blocks = nn.ModuleList(Block(d_model, heads, mlp_hidden) for _ in range(blocks))
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab)
        self.register_buffer("mask", torch.ones(context, context, dtype=torch.bool).triu(1),
                             persistent=False)

    def forward(self, ids: Tensor, ops: Ops = PLAIN):
        time = ids.size(1)
        x = ops.add(ops.embedding(self.tok_emb.weight, ids),
                    ops.embedding(self.pos_emb, torch.arange(time, device=ids.device)))
        for block in self.blocks:
            x = block(x, self.mask, ops)
        return ops.linear(ops.layer_norm(x, self.ln_f), self.head)


def build_model() -> nn.Module:
    return TinyTransformer({{ARGS}})
)PY";
}

}  // namespace
}  // namespace ampscope
