#include "reproduce/script_generator.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "ampscope/engine/config_schema.h"
#include "ampscope/engine/python_literal.h"
#include "ampscope/engine/reproduce_export.h"
#include "ampscope/engine/version.h"
#include "models/tiny_transformer.h"
#include "reproduce/export_folder.h"
#include "reproduce/script_templates.h"

namespace ampscope::reproduce {
namespace {

// Replaces every `placeholder` in `text`; a template without it is a build defect, not bad input.
void fill(std::string& text, const std::string& placeholder, const std::string& value) {
  size_t at = text.find(placeholder);
  if (at == std::string::npos) {
    throw std::logic_error("the run.py template has no placeholder " + placeholder);
  }
  for (; at != std::string::npos; at = text.find(placeholder, at + value.size())) {
    text.replace(at, placeholder.size(), value);
  }
}

bool trainsPlan(const RunConfig& config) {
  return std::find(config.modes.begin(), config.modes.end(), PrecisionMode::Plan) != config.modes.end();
}

std::string shapeDim(const std::map<std::string, std::vector<int64_t>>& shapes, const std::string& name,
                     size_t rank, size_t dim) {
  const auto it = shapes.find(name);
  if (it == shapes.end() || it->second.size() != rank) {
    throw std::runtime_error("the engine's parameters lack '" + name + "' of rank " + std::to_string(rank) +
                             "; the PyTorch model could not be sized");
  }
  return std::to_string(it->second[dim]);
}

}  // namespace

std::string planSections(std::string_view text, bool withPlan) {
  std::string out;
  bool inside = false;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    end = end == std::string_view::npos ? text.size() : end + 1;
    const std::string_view line = text.substr(start, end - start);
    const std::size_t indent = line.find_first_not_of(' ');
    const std::string_view code = indent == std::string_view::npos ? std::string_view() : line.substr(indent);
    if (code.substr(0, 10) == "# >>> plan") {
      if (inside) throw std::logic_error("a run.py template opens a plan section inside another");
      inside = true;
    } else if (code.substr(0, 10) == "# <<< plan") {
      if (!inside) throw std::logic_error("a run.py template closes a plan section it did not open");
      inside = false;
    } else if (!inside || withPlan) {
      out += line;
    }
    start = end;
  }
  if (inside) throw std::logic_error("a run.py template leaves a plan section open");
  return out;
}

// run.py checks the state_dict names and shapes against the export before it loads anything.
std::string modelCode(const RunConfig& config, const ParameterShapes& parameters) {
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
    std::string code = planSections(mlpPyTemplate(), trainsPlan(config));
    fill(code, "AMPSCOPE_CLASS", config.model == ModelKind::TinyMLP ? "TinyMLP" : "DeepMLP");
    fill(code, "AMPSCOPE_SIZES", sizes);
    return code;
  }
  int blocks = 0;
  while (shapes.count("blocks." + std::to_string(blocks) + ".ln1.weight") > 0) ++blocks;
  // The head count is the one size the shapes do not tell: it is the engine's own option.
  const detail::TinyTransformer::Options engineOptions;
  const std::string args =
      "vocab=" + shapeDim(shapes, "tok_emb.weight", 2, 0) + ", context=" + shapeDim(shapes, "pos_emb", 2, 0) +
      ", d_model=" + shapeDim(shapes, "tok_emb.weight", 2, 1) +
      ", heads=" + std::to_string(engineOptions.heads) + ", blocks=" + std::to_string(blocks) +
      ", mlp_hidden=" + shapeDim(shapes, "blocks.0.mlp.0.weight", 2, 0);
  std::string code = planSections(transformerPyTemplate(), trainsPlan(config));
  fill(code, "AMPSCOPE_ARGS", args);
  return code;
}

// Every key of CONFIG is spelled here and nowhere else in C++.
std::string configLiteral(const RunConfig& config, int64_t steps, const ParameterShapes& parameters,
                          const std::vector<std::string>& batchTensorNames,
                          const std::vector<PrecisionMode>& emulatedModes) {
  std::ostringstream py;
  py << "{\n";
  py << "    'ampscope_version': " << pyString(ampscopeVersion()) << ",\n";
  py << "    'libtorch_version': " << pyString(libtorchVersion()) << ",\n";
  // Every RunConfig field, named and written by the schema; `steps` is the exported count.
  RunConfig exported = config;
  exported.steps = steps;
  py << pythonConfigDict(exported);
  py << "    # the FP16/BF16 modes AmpScope ran emulated (no native kernels, or its precision-path choice):\n";
  py << "    # emulated here too; the others run natively where this PyTorch can\n";
  py << "    'emulated_modes': [";
  for (std::size_t i = 0; i < emulatedModes.size(); ++i) {
    py << (i ? ", " : "") << pyString(modeName(emulatedModes[i]));
  }
  py << "],\n";
  py << "    # (state_dict name, file) in the engine's order\n";
  py << "    'parameters': [\n";
  for (const auto& [name, shape] : parameters) {
    py << "        (" << pyString(name) << ", " << pyString(weightFile(name)) << "),  # " << pyTuple(shape)
       << "\n";
  }
  py << "    ],\n";
  py << "    # (name, file): every step's tensors stacked along a first axis of length 'steps'\n";
  py << "    'batch': [\n";
  for (const auto& name : batchTensorNames) {
    py << "        (" << pyString(name) << ", " << pyString(batchFile(name)) << "),\n";
  }
  py << "    ],\n";
  py << "}";
  return py.str();
}

}  // namespace ampscope::reproduce

namespace ampscope {

std::string reproduceScript(const RunConfig& config, int64_t steps,
                            const std::vector<std::pair<std::string, std::vector<int64_t>>>& parameters,
                            const std::vector<std::string>& batchTensorNames,
                            const std::vector<PrecisionMode>& emulatedModes) {
  std::string script = reproduce::planSections(reproduce::runPyTemplate(), reproduce::trainsPlan(config));
  reproduce::fill(script, "AMPSCOPE_MODEL", reproduce::modelCode(config, parameters));
  reproduce::fill(script, "AMPSCOPE_CONFIG",
                  reproduce::configLiteral(config, steps, parameters, batchTensorNames, emulatedModes));
  return script;
}

}  // namespace ampscope
