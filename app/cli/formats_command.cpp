// `ampscope-cli formats` and `ampscope-cli convert`: the number-format lab on a terminal.
// All the numbers come from ampscope/engine/number_format.h; this file parses argv and lays out text
// and JSON.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ampscope/engine/number_format.h"
#include "ampscope/engine/json.h"
#include "ampscope/engine/number_text.h"
#include "commands.h"

namespace ampscope::cli {

namespace {

using Row = std::vector<std::string>;

// NaN and the infinities print as numberText spells them ("nan", "inf", "-inf"); printf would write
// "-nan" for a NaN with its sign bit set.
std::string printfDouble(const char* format, double value) {
  if (!std::isfinite(value)) return numberText(value);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

// %e as torch.finfo prints it in the chapter (-6.550400e+04).
std::string sci(double value) { return printfDouble("%e", value); }

// Prints rows as aligned columns; the first row is the header. Numeric columns align right.
void printTable(std::ostream& out, const std::vector<Row>& rows, const std::vector<bool>& alignRight,
                const std::string& indent = "") {
  std::vector<std::size_t> widths;
  for (const Row& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  for (const Row& row : rows) {
    std::string line = indent;
    for (std::size_t c = 0; c < row.size(); ++c) {
      const std::string padding(widths[c] - row[c].size(), ' ');
      const bool right = c < alignRight.size() && alignRight[c];
      if (c > 0) line += "  ";
      line += right ? padding + row[c] : row[c] + (c + 1 < row.size() ? padding : "");
    }
    out << line << '\n';
  }
}

std::string knownDTypes() {
  return "fp64, fp32, tf32, fp16, bf16, fp8e4m3fn, fp8e5m2, fp4e2m1, e8m0 (also float16, half, bfloat16, "
         "float4_e2m1fn_x2, float8_e8m0fnu, ...)";
}

// "fp16,bf16" -> dtypes; an unknown name is reported on stderr.
std::optional<std::vector<DType>> parseDTypeList(const std::string& command, const std::string& list) {
  std::vector<DType> dtypes;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    const std::string name = list.substr(start, comma - start);
    const std::optional<DType> dtype = parseDType(name);
    if (!dtype) {
      std::cerr << "ampscope-cli " << command << ": unknown dtype '" << name << "' (known: " << knownDTypes()
                << ")\n";
      return std::nullopt;
    }
    dtypes.push_back(*dtype);
    start = comma + 1;
  }
  return dtypes;
}

// Options shared by both commands.
struct Options {
  bool json = false;
  bool help = false;
  std::vector<DType> dtypes = allDTypes();
  DType patternDType = DType::FP16;
  std::optional<long double> elements;  // formats: add the memory table
  std::vector<std::string> values;      // convert: the operands
};

// A leading '-' starts an option unless what follows reads as a number ("-1e-8", "-inf", "-0") or starts
// like one ("-1e400", "-0x3c00": values that then fail as values, with the reason, not as options).
bool looksLikeNegativeValue(const std::string& arg) {
  if (arg.size() < 2 || arg[0] != '-' || arg[1] == '-') return false;
  const char next = arg[1];
  return (next >= '0' && next <= '9') || next == '.' || parseValue(arg, DType::FP64).ok;
}

std::optional<Options> parseOptions(const std::string& command, const std::vector<std::string>& args,
                                    bool acceptsValues) {
  Options options;
  bool onlyValues = false;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const bool isOption = !onlyValues && arg.size() > 1 && arg[0] == '-' && !looksLikeNegativeValue(arg);
    if (!isOption) {
      if (!acceptsValues) {
        std::cerr << "ampscope-cli " << command << ": unexpected argument '" << arg << "' (see "
                  << "ampscope-cli " << command << " --help)\n";
        return std::nullopt;
      }
      options.values.push_back(arg);
      continue;
    }
    // --name=value or --name value.
    std::string name = arg;
    std::optional<std::string> inlineValue;
    if (const std::size_t equals = arg.find('='); equals != std::string::npos) {
      name = arg.substr(0, equals);
      inlineValue = arg.substr(equals + 1);
    }
    auto takeValue = [&]() -> std::optional<std::string> {
      if (inlineValue) return inlineValue;
      if (i + 1 < args.size()) return args[++i];
      std::cerr << "ampscope-cli " << command << ": " << name << " needs a value\n";
      return std::nullopt;
    };
    if (name != "--" && !seen.insert(name).second) {
      std::cerr << "ampscope-cli " << command << ": option " << name << " is given more than once; give it once\n";
      return std::nullopt;
    }
    if (name == "--") {
      onlyValues = true;
    } else if (name == "--help" || name == "-h") {
      options.help = true;
    } else if (name == "--json") {
      options.json = true;
    } else if (name == "--dtypes") {
      const auto list = takeValue();
      if (!list) return std::nullopt;
      const auto dtypes = parseDTypeList(command, *list);
      if (!dtypes) return std::nullopt;
      options.dtypes = *dtypes;
    } else if (name == "--pattern-dtype" && acceptsValues) {
      const auto text = takeValue();
      if (!text) return std::nullopt;
      const auto dtype = parseDType(*text);
      if (!dtype) {
        std::cerr << "ampscope-cli " << command << ": unknown dtype '" << *text
                  << "' (known: " << knownDTypes() << ")\n";
        return std::nullopt;
      }
      options.patternDType = *dtype;
    } else if (name == "--elements" && !acceptsValues) {
      const auto text = takeValue();
      if (!text) return std::nullopt;
      const ParsedValue count = parseValue(*text, DType::FP64);
      if (!count.ok || count.isBitPattern || !(count.value >= 0) || count.value > 1e30) {
        std::cerr << "ampscope-cli " << command << ": --elements needs a count >= 0 such as 1e9, not '"
                  << *text << "'\n";
        return std::nullopt;
      }
      options.elements = static_cast<long double>(count.value);
    } else {
      std::cerr << "ampscope-cli " << command << ": unknown option '" << arg << "' (see ampscope-cli "
                << command << " --help)\n";
      return std::nullopt;
    }
  }
  return options;
}

void printFormatsHelp(std::ostream& out) {
  out << "Usage: ampscope-cli formats [--json] [--dtypes LIST] [--elements N]\n"
         "\n"
         "The limits of each floating-point format (what torch.finfo reports): bit widths, exponent\n"
         "bias, lowest (min), max, eps (the gap after 1), tiny (smallest normal), the smallest\n"
         "subnormal and the decimal digits it keeps.\n"
         "\n"
         "Options:\n"
         "  --json          one JSON document instead of the table (NaN/inf as the strings \"nan\", "
         "\"inf\")\n"
         "  --dtypes LIST   comma-separated subset, e.g. fp32,fp16,bf16 (default: all)\n"
         "  --elements N    also print the memory N elements take in each format (the chapter uses 1e9)\n"
         "  --help          print this help\n";
}

void printConvertHelp(std::ostream& out) {
  out << "Usage: ampscope-cli convert [--json] [--dtypes LIST] [--pattern-dtype DTYPE] VALUE...\n"
         "\n"
         "Rounds each VALUE to each format (IEEE-754 round-to-nearest, ties to even, straight from the\n"
         "double) and prints the bits (sign exponent mantissa, and hex), the stored value, the absolute\n"
         "and relative rounding error, the class (zero, subnormal, normal, inf, nan) and what happened:\n"
         "flushed-to-zero, subnormal, overflowed, saturated, no-encoding, exact.\n"
         "\n"
         "Below each table: the saturating (satfinite) result of the FP8 and FP4 formats (E4M3FN: 448\n"
         "instead of NaN, E5M2: 57344 instead of inf; E2M1 has no overflow encoding and always saturates),\n"
         "and, where it differs, what PyTorch stores: it converts a Python float to float32 first and\n"
         "rounds that again.\n"
         "\n"
         "VALUE: a number (1e-8, 65504, -0, 0x1.8p3), inf, -inf, nan, or a bit pattern 0x3c00 / 0b0011...\n"
         "read in --pattern-dtype (default fp16). Put -- before values that look like options.\n"
         "\n"
         "Options:\n"
         "  --json                 one JSON document instead of the tables (NaN/inf as \"nan\", \"inf\")\n"
         "  --dtypes LIST          comma-separated subset, e.g. fp16,bf16 (default: all)\n"
         "  --pattern-dtype DTYPE  the format bit patterns are read in (default fp16)\n"
         "  --help                 print this help\n"
         "\n"
         "Dtypes: "
      << knownDTypes()
      << "\n"
         "Exit status: 0 ok, 2 a VALUE or an option that does not parse.\n";
}

std::string flagsText(const RoundingResult& r) {
  std::string flags;
  auto add = [&](const char* flag) {
    if (!flags.empty()) flags += ',';
    flags += flag;
  };
  if (r.flushedToZero) add("flushed-to-zero");
  if (r.becameSubnormal) add("subnormal");
  if (r.overflowed) add("overflowed");
  if (r.saturated) add("saturated");
  if (r.noEncoding) add("no-encoding");
  if (!r.overflowed && !r.noEncoding && r.absError == 0 && !std::isnan(r.stored)) add("exact");
  return flags.empty() ? "-" : flags;
}

std::string inputText(const ParsedValue& parsed, const std::string& text, DType patternDType) {
  std::string line = text;
  if (parsed.isBitPattern) {
    line +=
        "  (" + formatSpec(patternDType).name + " bits, value " + printfDouble("%.17g", parsed.value) + ")";
  } else {
    line += "  (as double: " + printfDouble("%.17g", parsed.value) + ")";
  }
  return line;
}

void writeFinfoJson(JsonWriter& json, DType dtype) {
  const FormatSpec& spec = formatSpec(dtype);
  const FInfo info = finfo(dtype);
  json.beginObject()
      .field("dtype", spec.name)
      .field("torch_name", spec.torchName)
      .field("bits", spec.totalBits)
      .field("exponent_bits", spec.exponentBits)
      .field("mantissa_bits", spec.mantissaBits)
      .field("bias", spec.bias)
      .field("storage_bits", spec.storageBits)
      .field("storage_bytes", spec.storageBits / 8.0)
      .field("has_sign", spec.hasSign)
      .field("has_infinity", spec.hasInfinity)
      .field("has_nan", spec.hasNaN)
      .field("min", info.lowest)
      .field("max", info.max)
      .field("eps", info.eps)
      .field("tiny", info.smallestNormal)
      .field("smallest_subnormal", info.smallestSubnormal)
      .field("digits", info.decimalDigits)
      .field("resolution", info.resolution)
      .field("min_exponent", static_cast<int>(info.minExponent))
      .field("max_exponent", static_cast<int>(info.maxExponent))
      .endObject();
}

// The formats whose saturating conversion the text output shows beside the IEEE one.
bool showsSaturating(DType dtype) {
  return dtype == DType::FP8E4M3FN || dtype == DType::FP8E5M2 || dtype == DType::FP4E2M1;
}

void writeResultFields(JsonWriter& json, DType dtype, const RoundingResult& r) {
  json.field("bits_hex", formatBitsHex(dtype, r.bits))
      .field("stored", r.stored)
      .field("class", valueClassName(r.cls))
      .field("overflowed", r.overflowed)
      .field("saturated", r.saturated);
}

}  // namespace

int runFormatsCommand(const std::vector<std::string>& args) {
  const std::optional<Options> options = parseOptions("formats", args, /*acceptsValues=*/false);
  if (!options) return kExitUsage;
  if (options->help) {
    printFormatsHelp(std::cout);
    return kExitOk;
  }
  std::vector<MemoryFootprint> memory;
  if (options->elements) memory = memoryFootprints(*options->elements);

  if (options->json) {
    std::string text;
    JsonWriter json(text, JsonWriter::Layout::Pretty);
    json.beginObject().key("formats").beginArray();
    for (const DType dtype : options->dtypes) writeFinfoJson(json, dtype);
    json.endArray();
    if (options->elements) {
      json.field("elements", static_cast<double>(*options->elements)).key("memory").beginArray();
      for (const DType dtype : options->dtypes) {
        for (const MemoryFootprint& row : memory) {
          if (row.dtype != dtype) continue;
          json.beginObject()
              .field("dtype", formatSpec(dtype).name)
              .field("bytes", static_cast<double>(row.bytes))
              .field("gib", row.gib)
              .endObject();
        }
      }
      json.endArray();
    }
    json.endObject();
    std::cout << text << '\n';
    return kExitOk;
  }

  std::vector<Row> rows = {{"dtype", "torch", "bits", "exponent", "mantissa", "bias", "min", "max", "eps",
                            "tiny", "smallest subnormal", "digits"}};
  for (const DType dtype : options->dtypes) {
    const FormatSpec& spec = formatSpec(dtype);
    const FInfo info = finfo(dtype);
    rows.push_back({spec.name, spec.torchName, std::to_string(spec.totalBits),
                    std::to_string(spec.exponentBits), std::to_string(spec.mantissaBits),
                    std::to_string(spec.bias), sci(info.lowest), sci(info.max), sci(info.eps),
                    sci(info.smallestNormal), sci(info.smallestSubnormal),
                    std::to_string(info.decimalDigits)});
  }
  printTable(std::cout, rows, {false, false, true, true, true, true, true, true, true, true, true, true});
  std::cout
      << "\nmin = -max; eps = 2^-mantissa (the gap after 1); tiny = smallest normal = 2^(1-bias);\n"
         "smallest subnormal = 2^(1-bias-mantissa). TF32 is stored in 4 bytes, its encoding has 19 bits.\n"
         "FP8 E4M3FN has no infinity (448 is its max; beyond it is NaN).\n"
         "FP4 E2M1 (OCP MX) has neither infinity nor NaN: beyond 6 it saturates. Two elements share a byte.\n"
         "E8M0 (the OCP MX block scale) has no sign, no mantissa and no zero: 2^-127 .. 2^127, 0xFF is NaN.\n";
  if (options->elements) {
    std::cout << "\nMemory of " << printfDouble("%.6g", static_cast<double>(*options->elements))
              << " elements:\n";
    std::vector<Row> memoryRows = {{"dtype", "bytes/element", "bytes", "GiB"}};
    for (const DType dtype : options->dtypes) {
      for (const MemoryFootprint& row : memory) {
        if (row.dtype != dtype) continue;
        memoryRows.push_back({formatSpec(dtype).name, printfDouble("%g", formatSpec(dtype).storageBits / 8.0),
                              printfDouble("%.0f", static_cast<double>(row.bytes)),
                              printfDouble("%.4f", row.gib)});
      }
    }
    printTable(std::cout, memoryRows, {false, true, true, true});
  }
  return kExitOk;
}

int runConvertCommand(const std::vector<std::string>& args) {
  const std::optional<Options> options = parseOptions("convert", args, /*acceptsValues=*/true);
  if (!options) return kExitUsage;
  if (options->help) {
    printConvertHelp(std::cout);
    return kExitOk;
  }
  if (options->values.empty()) {
    std::cerr << "ampscope-cli convert: no VALUE given (e.g. ampscope-cli convert 1e-8 65504 0x3c00)\n";
    return kExitUsage;
  }
  // Parse everything first: one bad value stops the command before any output.
  std::vector<ParsedValue> parsed;
  for (const std::string& text : options->values) {
    ParsedValue value = parseValue(text, options->patternDType);
    if (!value.ok) {
      std::cerr << "ampscope-cli convert: cannot parse value '" << text << "': " << value.error << "\n";
      return kExitUsage;
    }
    parsed.push_back(value);
  }

  if (options->json) {
    std::string text;
    JsonWriter json(text, JsonWriter::Layout::Pretty);
    json.beginObject()
        .field("pattern_dtype", formatSpec(options->patternDType).name)
        .key("values")
        .beginArray();
    for (std::size_t i = 0; i < parsed.size(); ++i) {
      json.beginObject()
          .field("input", options->values[i])
          .field("value", parsed[i].value)
          .field("is_bit_pattern", parsed[i].isBitPattern);
      json.key("results").beginArray();
      for (const DType dtype : options->dtypes) {
        const RoundingResult r = roundValue(dtype, parsed[i].value);
        const Decomposed parts = decompose(dtype, r.bits);
        json.beginObject()
            .field("dtype", formatSpec(dtype).name)
            .field("bits_binary", formatBitsBinary(dtype, r.bits))
            .field("bits_hex", formatBitsHex(dtype, r.bits))
            .field("sign", parts.sign ? 1 : 0)
            .field("exponent_field", parts.exponentField)
            .field("mantissa_field", static_cast<unsigned long long>(parts.mantissaField))
            .field("stored", r.stored)
            .field("stored_text", printfDouble("%.4e", r.stored))
            .field("abs_error", r.absError)
            .field("rel_error", r.relError)
            .field("class", valueClassName(r.cls))
            .field("flushed_to_zero", r.flushedToZero)
            .field("subnormal", r.becameSubnormal)
            .field("overflowed", r.overflowed)
            .field("saturated", r.saturated)
            .field("no_encoding", r.noEncoding);
        json.key("saturating").beginObject();
        writeResultFields(json, dtype, roundValueSaturating(dtype, parsed[i].value));
        json.endObject();
        const PyTorchConversion torch = pytorchConversion(dtype, parsed[i].value);
        json.key("pytorch").beginObject().field("available", torch.available);
        if (torch.available) {
          json.field("via_float32", torch.viaFloat32)
              .field("bits_hex", formatBitsHex(dtype, torch.bits))
              .field("stored", torch.stored)
              .field("differs", torch.differs);
          if (torch.differs) json.field("reason", torch.reason);
        }
        json.endObject().endObject();
      }
      json.endArray().endObject();
    }
    json.endArray().endObject();
    std::cout << text << '\n';
    return kExitOk;
  }

  for (std::size_t i = 0; i < parsed.size(); ++i) {
    if (i > 0) std::cout << '\n';
    std::cout << inputText(parsed[i], options->values[i], options->patternDType) << '\n';
    std::vector<Row> rows = {{"dtype", "bits (sign exponent mantissa)", "hex", "stored", "stored (%.17g)",
                              "abs error", "rel error", "class", "flags"}};
    for (const DType dtype : options->dtypes) {
      const RoundingResult r = roundValue(dtype, parsed[i].value);
      rows.push_back({formatSpec(dtype).name, formatBitsBinary(dtype, r.bits), formatBitsHex(dtype, r.bits),
                      printfDouble("%.4e", r.stored), printfDouble("%.17g", r.stored),
                      printfDouble("%.4e", r.absError), printfDouble("%.4e", r.relError),
                      valueClassName(r.cls), flagsText(r)});
    }
    printTable(std::cout, rows, {false, false, false, true, true, true, true, false, false}, "  ");
    // Extra lines start with their own word, so a dtype's row stays the only line that starts with it.
    std::vector<Row> extra;
    for (const DType dtype : options->dtypes) {
      if (!showsSaturating(dtype)) continue;
      const RoundingResult s = roundValueSaturating(dtype, parsed[i].value);
      extra.push_back({"satfinite", formatSpec(dtype).name, formatBitsHex(dtype, s.bits),
                       printfDouble("%.4e", s.stored), flagsText(s)});
    }
    if (!extra.empty()) printTable(std::cout, extra, {false, false, false, true, false}, "  ");
    for (const DType dtype : options->dtypes) {
      const PyTorchConversion torch = pytorchConversion(dtype, parsed[i].value);
      if (!torch.differs) continue;
      std::cout << "  pytorch " << formatSpec(dtype).name << ": " << formatBitsHex(dtype, torch.bits) << " "
                << printfDouble("%.17g", torch.stored) << " -- " << torch.reason << '\n';
    }
  }
  return kExitOk;
}

}  // namespace ampscope::cli
