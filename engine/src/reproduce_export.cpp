#include "ampscope/engine/reproduce_export.h"

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

// Python literal of a double that reads back as the same double.
std::string pyFloat(double value) {
  if (std::isnan(value)) return "float('nan')";
  if (std::isinf(value)) return value > 0 ? "float('inf')" : "float('-inf')";
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.17g", value);
  std::string text = buffer;
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
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    stem += ok ? c : '_';
  }
  return stem.empty() ? std::string("tensor") : stem;
}

std::string scriptTemplate();

// The Python model matching the engine's, built from the exported parameter shapes so the sizes are
// exactly the engine's. The state_dict names are asserted by run.py against the export.
std::string modelCode(const RunConfig& config,
                      const std::vector<std::pair<std::string, std::vector<int64_t>>>& parameters) {
  std::map<std::string, std::vector<int64_t>> shapes(parameters.begin(), parameters.end());
  std::ostringstream code;
  if (config.model == ModelKind::TinyMLP || config.model == ModelKind::DeepMLP) {
    // net.0, net.2, ... are Linear layers with a GELU between consecutive ones (nn.Sequential numbering).
    std::vector<int64_t> sizes;
    for (int index = 0;; index += 2) {
      auto it = shapes.find("net." + std::to_string(index) + ".weight");
      if (it == shapes.end() || it->second.size() != 2) break;
      if (sizes.empty()) sizes.push_back(it->second[1]);
      sizes.push_back(it->second[0]);
    }
    if (sizes.size() < 2) {
      throw std::runtime_error("the engine's MLP parameters are not named net.<i>.weight as expected");
    }
    const std::string className = config.model == ModelKind::TinyMLP ? "TinyMLP" : "DeepMLP";
    code << "class " << className << "(nn.Module):\n"
         << "    \"\"\"Linear layers with GELU between them, as AmpScope's " << modelName(config.model)
         << " (state_dict names net.0.weight, net.0.bias, net.2.weight, ...).\"\"\"\n\n"
         << "    def __init__(self, *sizes: int) -> None:\n"
         << "        super().__init__()\n"
         << "        layers = []\n"
         << "        for i in range(len(sizes) - 1):\n"
         << "            layers.append(nn.Linear(sizes[i], sizes[i + 1]))\n"
         << "            if i + 2 < len(sizes):\n"
         << "                layers.append(nn.GELU())\n"
         << "        self.net = nn.Sequential(*layers)\n\n"
         << "    def forward(self, x: Tensor, precision: Precision = PLAIN) -> Tensor:\n"
         << "        # The same as self.net(x); the loop only lets the CPU FP16 emulation round at\n"
         << "        # autocast's cast points (see Precision).\n"
         << "        for layer in self.net:\n"
         << "            if isinstance(layer, nn.Linear):\n"
         << "                x = precision.linear(layer, x)\n"
         << "            else:\n"
         << "                x = precision.r(layer(x))\n"
         << "        return x\n\n\n"
         << "def build_model() -> nn.Module:\n"
         << "    return " << className << "(";
    for (size_t i = 0; i < sizes.size(); ++i) code << (i ? ", " : "") << sizes[i];
    code << ")\n\n\n"
         << "def loss_fn(logits: Tensor, labels: Tensor) -> Tensor:\n"
         << "    return F.cross_entropy(logits, labels)\n";
    return code.str();
  }
  throw std::runtime_error("the PyTorch export does not support the model '" + modelName(config.model) +
                           "' yet");
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
    py << "        (" << pyString(name) << ", " << pyString("weights/" + fileStem(name) + ".npy")
       << "),  # " << shapeTuple(shape) << "\n";
  }
  py << "    ],\n";
  py << "    # (name, file): every step's tensors stacked along a first axis of length 'steps'\n";
  py << "    'batch': [\n";
  for (const auto& name : batchTensorNames) {
    py << "        (" << pyString(name) << ", " << pyString("batches/" + fileStem(name) + ".npy")
       << "),\n";
  }
  py << "    ],\n";
  py << "}";
  return py.str();
}

void replaceAll(std::string& text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
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
       << "  fp16-pure        model.half() (CUDA only, see below).\n\n"
       << "FP16 on a CPU: PyTorch's CPU autocast supports bfloat16 only, and FP16 matrix products,\n"
       << "GELU, log_softmax and AdamW have no FP16 CPU kernels in PyTorch 1.13. On a CPU run.py\n"
       << "therefore EMULATES fp16-amp and fp16-amp-scaled the way AmpScope does: float32 arithmetic,\n"
       << "with every value rounded exactly (round-to-nearest-even, via Tensor.half()) to float16 at the\n"
       << "points where CUDA autocast casts - the inputs, weight and bias of each Linear, its output,\n"
       << "the output of the GELU that follows, and the gradients flowing back through those points.\n"
       << "The GradScaler there is a small class in run.py with torch's rule (torch's own GradScaler\n"
       << "works on CUDA only). The script says which it uses for each mode when it starts. Pass\n"
       << "--no-emulation to refuse FP16 modes on a CPU instead. fp16-pure needs --device cuda.\n\n"
       << "How close to AmpScope?\n----------------------\n"
       << "fp32 on the CPU uses the same weights, batches and operation order as AmpScope's LibTorch;\n"
       << "what remains is the order in which kernels sum (thread count, BLAS blocking), so the losses\n"
       << "agree to about 1e-6. Low-precision modes can drift further apart over many steps, because\n"
       << "each rounding difference is amplified by training; the first steps should still agree closely.\n";
  return text.str();
}

}  // namespace

std::string npyHeader(const std::string& descr, const std::vector<int64_t>& shape) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shapeTuple(shape) +
                     ", }";
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
  out += static_cast<char>(1);  // major version
  out += static_cast<char>(0);  // minor version
  out += static_cast<char>(dict.size() & 0xff);         // header length, little-endian uint16
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

ReproduceExportResult exportReproduction(const RunConfig& config, int64_t steps,
                                         const std::string& directory,
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
          char loss[64];
          std::snprintf(loss, sizeof(loss), "%.17g", mode.loss);  // nan / inf read by Python's float()
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

// run.py with two placeholders: {{CONFIG}} (a Python dict literal) and {{MODEL}} (the nn.Module, its
// constructor call and the loss function).
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
# run *emulated*, exactly as AmpScope does on such a machine: float32 arithmetic, with every value
# rounded to the nearest float16 (IEEE round-to-nearest-even, through Tensor.half()) at the points
# where CUDA autocast would cast: the inputs, weight and bias of each Linear, its output, the output of
# the element-wise op that follows in float16, and the gradients flowing back through the same points.
# A value too small for float16 becomes 0 there (underflow), one too large becomes inf (overflow).
# On a CUDA device the same modes use real torch.autocast(dtype=torch.float16) instead.
# ---------------------------------------------------------------------------------------------------
class RoundToHalf(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x: Tensor) -> Tensor:
        return x.half().float()

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        return grad.half().float()


class Precision:
    """How the forward pass of one mode runs: native autocast, FP16 emulation, or plain."""

    def __init__(self, autocast_dtype=None, emulate_fp16=False):
        self.autocast_dtype = autocast_dtype
        self.emulate_fp16 = emulate_fp16

    def r(self, x: Tensor) -> Tensor:
        return RoundToHalf.apply(x) if self.emulate_fp16 else x

    def linear(self, layer: nn.Linear, x: Tensor) -> Tensor:
        if not self.emulate_fp16:
            return layer(x)
        bias = None if layer.bias is None else self.r(layer.bias)
        return self.r(F.linear(self.r(x), self.r(layer.weight), bias))


PLAIN = Precision()


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


def make_optimizer(model: nn.Module):
    if CONFIG["optimizer"] == "sgd":
        return optim.SGD(model.parameters(), lr=CONFIG["lr"], momentum=CONFIG["momentum"],
                         weight_decay=CONFIG["sgd_weight_decay"])
    return optim.AdamW(model.parameters(), lr=CONFIG["lr"], eps=CONFIG["adam_eps"],
                       weight_decay=CONFIG["weight_decay"])


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
        if mode == "fp16-pure" and cpu:
            raise RuntimeError("fp16-pure: model.half() cannot train on a CPU with PyTorch %s (no FP16 "
                               "kernels for GELU, log_softmax or AdamW's addcmul); run it with "
                               "--device cuda" % torch.__version__)
        self.param_dtype = torch.float32
        self.precision = PLAIN
        self.native_note = "float32"
        if mode in ("fp16-amp-scaled", "fp16-amp"):
            if cpu:
                self.precision = Precision(emulate_fp16=True)
                self.native_note = "FP16 autocast EMULATED (float32 math, exact rounding to float16)"
            else:
                self.precision = Precision(autocast_dtype=torch.float16)
                self.native_note = "torch.autocast('cuda', dtype=torch.float16)"
        elif mode == "bf16-amp":
            self.precision = Precision(autocast_dtype=torch.bfloat16)
            self.native_note = "torch.autocast('%s', dtype=torch.bfloat16)" % device.type
        elif mode == "fp16-pure":
            self.model.half()
            self.param_dtype = torch.float16
            self.native_note = "model.half()"
        elif mode == "bf16-pure":
            self.model.to(torch.bfloat16)
            self.param_dtype = torch.bfloat16
            self.native_note = "model.to(torch.bfloat16)"
        self.optimizer = make_optimizer(self.model)
        uses_scaler = mode == "fp16-amp-scaled" or (mode == "fp16-pure" and CONFIG["scaler_for_pure_fp16"])
        self.scaler = None
        if uses_scaler and CONFIG["scaler"]["enabled"]:
            native = mode == "fp16-amp-scaled" and not cpu
            self.scaler, name = make_grad_scaler(device, native)
            self.native_note += ", " + name
        self.diverged = False

    def forward_loss(self, inputs: Tensor, targets: Tensor) -> Tensor:
        if self.precision.autocast_dtype is not None:
            with torch.autocast(self.device.type, dtype=self.precision.autocast_dtype):
                logits = self.model(inputs, self.precision)
                loss = loss_fn(logits, targets)
        else:
            logits = self.model(inputs, self.precision)
            loss = loss_fn(logits, targets)
        return loss

    def step(self, inputs: Tensor, targets: Tensor):
        if self.param_dtype != torch.float32 and inputs.is_floating_point():
            inputs = inputs.to(self.param_dtype)
        self.optimizer.zero_grad()
        loss = self.forward_loss(inputs, targets)
        weighted = loss * CONFIG["loss_weight"]
        clip = CONFIG["clip_order"]
        max_norm = CONFIG["clip_max_norm"]
        scale = 1.0
        stepped = True
        if self.scaler is not None:
            scale = self.scaler.get_scale()
            self.scaler.scale(weighted).backward()
            if clip == "after-unscale":
                self.scaler.unscale_(self.optimizer)      # the chapter's order: unscale_ -> clip -> step
                nn.utils.clip_grad_norm_(self.model.parameters(), max_norm)
            elif clip == "before-unscale":
                nn.utils.clip_grad_norm_(self.model.parameters(), max_norm)  # clips SCALED gradients
            before = self.scaler.get_scale()
            result = self.scaler.step(self.optimizer)
            self.scaler.update()
            # torch's GradScaler.step returns None or the closure's value; a backoff shows a skip.
            stepped = bool(result) if isinstance(self.scaler, PortableGradScaler) \
                else self.scaler.get_scale() >= before
        else:
            weighted.backward()
            if clip != "off":
                nn.utils.clip_grad_norm_(self.model.parameters(), max_norm)
            self.optimizer.step()
        value = float(loss.detach().float())
        if not math.isfinite(value):
            self.diverged = True
        else:
            for p in self.model.parameters():
                if not torch.isfinite(p).all():
                    self.diverged = True
                    break
        return value, scale, not stepped


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
        print("  %-16s %s" % (run.mode, run.native_note))

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

}  // namespace
}  // namespace ampscope
