// The RunConfig schema (config_schema.h): every field's text and JSON round trips, its bounds, and
// the errors naming the full key. Links ampscope_data only: the whole RunConfig API needs no LibTorch.
#include "ampscope/engine/config_schema.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <set>
#include <string>

#include "ampscope/engine/json.h"
#include "ampscope/engine/number_text.h"

namespace ampscope {
namespace {

// Bit-for-bit equality of every field (doubles compared by their bits: -0.0 is not 0.0 here).
bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void expectSameConfig(const RunConfig& a, const RunConfig& b) {
  for (const ConfigField& field : configFields()) {
    if (field.type == FieldType::Real) {
      EXPECT_TRUE(sameBits(field.access.getReal(a), field.access.getReal(b)))
          << field.key << ": " << fieldText(a, field) << " vs " << fieldText(b, field);
    } else {
      EXPECT_EQ(fieldText(a, field), fieldText(b, field)) << field.key;
    }
  }
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.modes, b.modes);
}

bool outOfBounds(const ConfigField& field, double value) {
  RunConfig scratch;
  field.access.setReal(scratch, value);
  return checkField(scratch, field).has_value();
}

// A value inside the field's bounds, drawn at random (log-uniform for reals spanning decades).
RunConfig randomConfig(std::mt19937_64& rng) {
  RunConfig config;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (const ConfigField& field : configFields()) {
    switch (field.type) {
      case FieldType::Choice: {
        const auto names = fieldChoices(field);
        EXPECT_FALSE(setFieldText(config, field, names[rng() % names.size()]));
        break;
      }
      case FieldType::ModeList: {
        std::vector<PrecisionMode> modes = allPrecisionModes();
        std::shuffle(modes.begin(), modes.end(), rng);
        modes.resize(1 + rng() % modes.size());
        config.modes = modes;
        break;
      }
      case FieldType::Integer: {
        const auto lo = static_cast<int64_t>(field.min);
        auto hi = static_cast<int64_t>(field.max);
        // The batch's bound also depends on the model and modes drawn before it (table order).
        if (field.key == "batch") hi = std::min(hi, stepMemoryEstimate(config).maxBatch);
        const int64_t value = lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
        EXPECT_FALSE(setFieldText(config, field, std::to_string(value))) << field.key;
        break;
      }
      case FieldType::Real: {
        double value = 0;
        do {
          const double lo = std::max(field.min, 1e-12);
          value = field.min < 1e-12 && rng() % 4 == 0 ? field.min * unit(rng)
                                                      : lo * std::pow(field.max / lo, unit(rng));
        } while (outOfBounds(field, value));
        field.access.setReal(config, value);
        break;
      }
      case FieldType::Switch: field.access.setSwitch(config, rng() % 2 == 0); break;
      case FieldType::LayerModes: {
        // Some of the model's layers (drawn before: table order), each in a mode a plan allows.
        std::vector<std::pair<std::string, PrecisionMode>> layers;
        for (const std::string& layer : planLayerNames(config.model)) {
          if (rng() % 2 == 0) layers.emplace_back(layer, planLayerModes()[rng() % planLayerModes().size()]);
        }
        EXPECT_FALSE(setFieldText(config, field, planLayersText(layers))) << planLayersText(layers);
        break;
      }
    }
  }
  return config;
}

TEST(ConfigSchema, EveryRunConfigMemberHasOneRowWithAUniqueKeyFlagAndHelp) {
  // RunConfig's members (run_config.h): 22 top-level ones, ScalerConfig's 5, Fp8Config's 6 and
  // PlanConfig's 2 make 35 - 3 (scaler, fp8 and plan themselves).
  EXPECT_EQ(configFields().size(), 32u);
  std::set<std::string_view> keys, flags;
  for (const ConfigField& field : configFields()) {
    EXPECT_TRUE(keys.insert(field.key).second) << field.key;
    EXPECT_TRUE(flags.insert(field.flag).second) << field.flag;
    EXPECT_EQ(field.flag.substr(0, 2), "--") << field.key;
    EXPECT_FALSE(field.help.empty()) << field.key;
    EXPECT_EQ(findConfigField(field.key), &field);
    EXPECT_EQ(findConfigFlag(field.flag), &field);
    if (field.type == FieldType::Integer || field.type == FieldType::Real) {
      EXPECT_LT(field.min, field.max) << field.key;
    }
  }
}

TEST(ConfigSchema, TheDefaultsAndEveryPresetAreValid) {
  EXPECT_TRUE(validate(RunConfig{}).empty());
  for (ModelKind model : {ModelKind::TinyMLP, ModelKind::DeepMLP, ModelKind::TinyTransformer}) {
    const auto errors = validate(presetFor(model));
    EXPECT_TRUE(errors.empty()) << modelName(model) << ": " << (errors.empty() ? "" : errors[0].field);
  }
}

TEST(ConfigSchema, FieldTextReadsBackBitForBit) {
  std::mt19937_64 rng(20240611);
  for (int round = 0; round < 200; ++round) {
    const RunConfig original = randomConfig(rng);
    ASSERT_TRUE(validate(original).empty());
    RunConfig copy = presetFor(ModelKind::TinyTransformer);
    copy.scaler.enabled = !original.scaler.enabled;
    copy.scalerForPureFp16 = !original.scalerForPureFp16;
    for (const ConfigField& field : configFields()) {
      const auto error = setFieldText(copy, field, fieldText(original, field));
      ASSERT_FALSE(error) << field.key << ": " << error->message;
    }
    expectSameConfig(original, copy);
  }
}

TEST(ConfigSchema, WriteConfigJsonThenReadConfigJsonIsTheIdentity) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    const RunConfig original = randomConfig(rng);
    std::string text;
    JsonWriter writer(text);
    writeConfigJson(writer, original);
    ASSERT_TRUE(writer.complete());
    JsonParseError parseError;
    const auto json = parseJson(text, &parseError);
    ASSERT_TRUE(json) << parseError.message << " in " << text;
    RunConfig read = presetFor(ModelKind::DeepMLP);
    read.scaler.enabled = !original.scaler.enabled;
    read.scalerForPureFp16 = !original.scalerForPureFp16;
    const auto errors = readConfigJson(*json, read, /*requireAll=*/true, "config.");
    ASSERT_TRUE(errors.empty()) << errors[0].field << ": " << errors[0].message;
    expectSameConfig(original, read);
    // The same config gives the same bytes.
    std::string again;
    JsonWriter second(again);
    writeConfigJson(second, read);
    EXPECT_EQ(text, again);
  }
}

TEST(ConfigSchema, AConfigWrittenBeforeTheFp8RowsReadsWithTheirDefaults) {
  // The config object as every session and stream header held it before the fp8 rows (the text of
  // TheDefaultsAreWrittenNestedInTableOrder without "fp8"), with every field required.
  const auto json = parseJson(
      "{\"model\":\"tiny-mlp\",\"modes\":[\"fp32\"],\"optimizer\":\"adamw\",\"lr\":0.001,\"momentum\":0.9,"
      "\"weight-decay\":0.01,\"adam-eps\":1e-08,\"batch\":32,\"seed\":0,\"steps\":500,\"loss-weight\":1,"
      "\"scaler\":{\"init-scale\":65536,\"growth-factor\":2,\"backoff-factor\":0.5,\"growth-interval\":2000,"
      "\"enabled\":true},\"scaler-for-pure-fp16\":false,\"clip\":{\"order\":\"off\",\"max-norm\":1},"
      "\"instrument-every\":10,\"threads\":1}",
      nullptr);
  ASSERT_TRUE(json);
  RunConfig config;
  config.fp8.margin = 3;  // the reader leaves absent fields as they are: the caller's defaults
  const auto errors = readConfigJson(*json, config, /*requireAll=*/true, "config.");
  EXPECT_TRUE(errors.empty()) << errors[0].field;
  EXPECT_EQ(config.fp8.margin, 3);
  // Any other field missing is still an error.
  const auto partial = parseJson("{\"model\":\"tiny-mlp\"}", nullptr);
  ASSERT_TRUE(partial);
  RunConfig other;
  const auto missing = readConfigJson(*partial, other, true, "config.");
  ASSERT_FALSE(missing.empty());
  for (const auto& error : missing) EXPECT_NE(error.field.substr(0, 11), "config.fp8.") << error.field;
}

TEST(ConfigSchema, TheFp8RowsAreWrittenWhenAQuantisedModeOrAValueNeedsThem) {
  auto written = [](const RunConfig& config) {
    std::string text;
    JsonWriter writer(text);
    writeConfigJson(writer, config);
    return text;
  };
  const std::string fp8Defaults =
      ",\"fp8\":{\"amax-history-len\":1024,\"margin\":0,\"scaling\":true,\"spike-step\":0,"
      "\"spike-factor\":1000}}";
  RunConfig quantised;
  quantised.modes = {PrecisionMode::FP32, PrecisionMode::Fp8Delayed};
  const std::string withMode = written(quantised);
  EXPECT_EQ(withMode.substr(withMode.size() - fp8Defaults.size()), fp8Defaults);
  RunConfig margin;
  margin.fp8.margin = 2;
  EXPECT_NE(written(margin).find("\"fp8\":{\"amax-history-len\":1024,\"margin\":2,"), std::string::npos);
  EXPECT_EQ(written(RunConfig{}).find("fp8"), std::string::npos);
}

// fp8.outlier-factor came after sessions of quantised runs were written: while it is 1 (off) a config
// writes the bytes it wrote before the row existed (the test above), and only a factor that is set is
// written, last in the fp8 object, and read back.
TEST(ConfigSchema, TheOutlierFactorIsWrittenOnlyWhenSet) {
  auto written = [](const RunConfig& config) {
    std::string text;
    JsonWriter writer(text);
    writeConfigJson(writer, config);
    return text;
  };
  RunConfig quantised;
  quantised.modes = {PrecisionMode::FP32, PrecisionMode::MXFP8};
  EXPECT_EQ(written(quantised).find("outlier"), std::string::npos);
  quantised.fp8.outlierFactor = 1e6;
  const std::string withOutlier = written(quantised);
  EXPECT_NE(withOutlier.find("\"spike-factor\":1000,\"outlier-factor\":1e+06}}"), std::string::npos) << withOutlier;
  // Without a quantised mode the set factor still brings the fp8 object (it acts on FP32 too).
  RunConfig fp32;
  fp32.modes = {PrecisionMode::FP32};
  fp32.fp8.outlierFactor = 250;
  const std::string plain = written(fp32);
  EXPECT_NE(plain.find("\"fp8\":{\"amax-history-len\":1024,"), std::string::npos) << plain;
  EXPECT_NE(plain.find("\"outlier-factor\":250}"), std::string::npos) << plain;
  const auto json = parseJson(withOutlier, nullptr);
  ASSERT_TRUE(json);
  RunConfig back;
  const auto errors = readConfigJson(*json, back, /*requireAll=*/true, "config.");
  EXPECT_TRUE(errors.empty()) << errors[0].field << ": " << errors[0].message;
  EXPECT_EQ(back.fp8.outlierFactor, 1e6);
}

// The factor multiplies: below 1 it would shrink the feature, which is not an outlier.
TEST(ConfigSchema, TheOutlierFactorIsAtLeastOne) {
  const ConfigField* field = findConfigField("fp8.outlier-factor");
  ASSERT_NE(field, nullptr);
  EXPECT_EQ(field->flag, "--outlier-factor");
  RunConfig config;
  const auto error = setFieldText(config, *field, "0.5");
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->field, "fp8.outlier-factor");
  EXPECT_EQ(error->message, "must be >= 1 (got 0.5)");
  EXPECT_FALSE(setFieldText(config, *field, "1").has_value());
  EXPECT_EQ(config.fp8.outlierFactor, 1.0);
}

TEST(ConfigSchema, TheDefaultsAreWrittenNestedInTableOrder) {
  // The layout of a session's "config" object: nested "scaler" and "clip" objects.
  std::string text;
  JsonWriter writer(text);
  writeConfigJson(writer, RunConfig{});
  EXPECT_EQ(text,
            "{\"model\":\"tiny-mlp\",\"modes\":[\"fp32\",\"fp16-amp-scaled\",\"bf16-amp\"],"
            "\"optimizer\":\"adamw\",\"lr\":0.001,\"momentum\":0.9,\"weight-decay\":0.01,\"adam-eps\":1e-08,"
            "\"batch\":32,\"seed\":0,\"steps\":500,\"loss-weight\":1,"
            "\"scaler\":{\"init-scale\":65536,\"growth-factor\":2,\"backoff-factor\":0.5,"
            "\"growth-interval\":2000,\"enabled\":true},\"scaler-for-pure-fp16\":false,"
            "\"clip\":{\"order\":\"off\",\"max-norm\":1},\"instrument-every\":10,\"threads\":1}");
}

// Outside each field's bounds (the table's), by a little and by a lot; every error names the full key.
TEST(ConfigSchema, OutOfBoundsValuesAreRefusedWithTheFullKey) {
  for (const ConfigField& field : configFields()) {
    if (field.type != FieldType::Integer && field.type != FieldType::Real) continue;
    std::vector<std::string> bad;
    if (field.type == FieldType::Integer) {
      bad = {std::to_string(static_cast<int64_t>(field.min) - 1), std::to_string(static_cast<int64_t>(field.max) + 1),
             "9223372036854775807", "99999999999999999999", "1.5", "ten", ""};
    } else {
      bad = {numberText(field.max * 2), "nan", "inf", "-inf", "-1", "1e39", "fast"};
      if (field.minExclusive) bad.push_back(numberText(field.min));
      if (field.maxExclusive) bad.push_back(numberText(field.max));
    }
    for (const std::string& text : bad) {
      RunConfig config;
      const RunConfig before = config;
      const auto error = setFieldText(config, field, text);
      ASSERT_TRUE(error) << field.key << " accepted " << text;
      EXPECT_EQ(error->field, field.key) << text;
      expectSameConfig(before, config);  // unchanged
    }
  }
}

TEST(ConfigSchema, ValuesThatLibTorchCannotTakeAsFloat32AreRefused) {
  // LibTorch refuses a double above FLT_MAX (3.4028235e38) for a float scalar: "value cannot be
  // converted to type float without overflow". These used to pass validate() and fail in training.
  struct Case {
    const char* key;
    const char* text;
  };
  for (const Case c : {Case{"lr", "1e38"}, Case{"clip.max-norm", "1e39"}, Case{"scaler.init-scale", "1e308"},
                       Case{"steps", "9223372036854775807"}, Case{"threads", "300"},
                       Case{"seed", "9007199254740992"}}) {
    RunConfig config;
    const auto error = setFieldText(config, *findConfigField(c.key), c.text);
    ASSERT_TRUE(error) << c.key << " " << c.text;
    EXPECT_EQ(error->field, c.key);
  }
  // The largest accepted values fit float32.
  for (const char* key : {"lr", "clip.max-norm", "scaler.init-scale", "scaler.growth-factor", "loss-weight"}) {
    EXPECT_LT(findConfigField(key)->max, static_cast<double>(std::numeric_limits<float>::max())) << key;
  }
}

TEST(ConfigSchema, OneThreadsBoundForTextAndJson) {
  // The one bound of the table, [1, 256]: setFieldText and readConfigJson agree on it.
  RunConfig config;
  EXPECT_FALSE(setFieldText(config, *findConfigField("threads"), "256"));
  EXPECT_EQ(config.threadsPerMode, 256);
  const auto refused = setFieldText(config, *findConfigField("threads"), "300");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->message, "must be <= 256 (got 300)");
  EXPECT_EQ(fieldBoundsText(*findConfigField("threads")), "[1, 256]");

  JsonParseError error;
  RunConfig fromJson;
  EXPECT_TRUE(readConfigJson(*parseJson(R"({"threads": 256})", &error), fromJson, false).empty());
  EXPECT_EQ(fromJson.threadsPerMode, 256);
  const auto errors = readConfigJson(*parseJson(R"({"threads": 300})", &error), fromJson, false);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].field, "threads");
  EXPECT_EQ(errors[0].message, "must be <= 256 (got 300)");
  fromJson.threadsPerMode = 300;
  ASSERT_FALSE(validate(fromJson).empty());
  EXPECT_EQ(validate(fromJson)[0].field, "threads");
}

// The parameter counts follow PyTorch's nn.Linear (in*out weights + out biases), nn.LayerNorm (2*width)
// and nn.Embedding (vocab*width) for the models' documented shapes: TinyMLP(128, 512, 10); the deep MLP
// 128-256-256-256-256-10; the transformer with vocab 13, context 32 (a learned position table), width
// 32, two blocks (qkv, projection, a 128-wide MLP, two norms each), a final norm and the head.
// (reproduce_export_test compares them with the built models' weights.)
TEST(ConfigSchema, TheStepMemoryEstimateCountsTheModelsParameters) {
  EXPECT_EQ(stepMemoryEstimate(presetFor(ModelKind::TinyMLP)).parameters, 128 * 512 + 512 + 512 * 10 + 10);
  EXPECT_EQ(stepMemoryEstimate(presetFor(ModelKind::DeepMLP)).parameters,
            128 * 256 + 256 + 3 * (256 * 256 + 256) + 256 * 10 + 10);
  const int64_t block = 2 * 64 + (32 * 96 + 96) + (32 * 32 + 32) + (32 * 128 + 128) + (128 * 32 + 32);
  EXPECT_EQ(stepMemoryEstimate(presetFor(ModelKind::TinyTransformer)).parameters,
            13 * 32 + 32 * 32 + 2 * block + 64 + 32 * 13 + 13);
  // More examples, more modes: more bytes.
  RunConfig config = presetFor(ModelKind::TinyMLP);
  const double base = stepMemoryEstimate(config).bytes;
  config.batchSize *= 2;
  EXPECT_GT(stepMemoryEstimate(config).bytes, base);
  config.modes.push_back(PrecisionMode::FP16Pure);
  EXPECT_GT(stepMemoryEstimate(config).bytes, stepMemoryEstimate(presetFor(ModelKind::TinyMLP)).bytes);
}

// The batch is bounded by what one step needs: at the largest batch that fits the config is valid, one
// more is refused on "batch" with the estimate, the model and the largest batch in the message. Every
// model still takes its preset batch and, the MLPs, the schema's own maximum.
TEST(ConfigSchema, TheBatchIsBoundedByTheStepMemoryEstimate) {
  RunConfig config = presetFor(ModelKind::TinyTransformer);
  const int64_t maxBatch = stepMemoryEstimate(config).maxBatch;
  ASSERT_GT(maxBatch, presetFor(ModelKind::TinyTransformer).batchSize);
  ASSERT_LT(maxBatch, 65536) << "the schema's batch maximum fits the transformer, so this tests nothing";
  config.batchSize = maxBatch;
  EXPECT_TRUE(validate(config).empty());
  EXPECT_LE(stepMemoryEstimate(config).bytes, static_cast<double>(kStepMemoryLimitBytes));
  config.batchSize = maxBatch + 1;
  const auto errors = validate(config);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].field, "batch");
  EXPECT_NE(errors[0].message.find("one step would need about 4.3 GB (tiny-transformer, 27341 parameters, 3 "
                                   "mode(s), batch " + std::to_string(maxBatch + 1) + ")"),
            std::string::npos)
      << errors[0].message;
  EXPECT_NE(errors[0].message.find("at most batch " + std::to_string(maxBatch) + " fits"), std::string::npos)
      << errors[0].message;
  // Fewer modes leave room for more examples.
  config.modes = {PrecisionMode::FP32};
  EXPECT_GE(stepMemoryEstimate(config).maxBatch, maxBatch);
  for (ModelKind model : {ModelKind::TinyMLP, ModelKind::DeepMLP}) {
    RunConfig mlp = presetFor(model);
    mlp.batchSize = 65536;
    EXPECT_TRUE(validate(mlp).empty()) << modelName(model);
  }
}

TEST(ConfigSchema, ANestedKeyIsNamedInFullWithThePrefix) {
  // Before the schema, a session reader joined the prefix and validate()'s short name: the error read
  // "config.growth-interval", a key no file has.
  JsonParseError error;
  RunConfig config;
  const auto errors =
      readConfigJson(*parseJson(R"({"scaler": {"growth-interval": 0}})", &error), config, false, "config.");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].field, "config.scaler.growth-interval");
  EXPECT_EQ(errors[0].message, "must be >= 1 (got 0)");
}

// An error carries its template and arguments for the user interface's catalogue (the run panel shows
// it translated, ui/training/run_panel.cpp); its English message is the template filled in.
TEST(ConfigSchema, ErrorsCarryATranslatableTemplateAndItsArguments) {
  RunConfig config;
  const auto error = setFieldText(config, *findConfigField("batch"), "0");
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->message, "must be >= 1 (got 0)");
  EXPECT_EQ(error->text, "must be >= %1 (got %2)");
  EXPECT_EQ(error->args, (std::vector<std::string>{"1", "0"}));
  const auto word = setFieldText(config, *findConfigField("batch"), "many");
  ASSERT_TRUE(word.has_value());
  EXPECT_EQ(word->message, "not an integer (got 'many')");
  EXPECT_EQ(word->text, "not an integer (got '%1')");
  // An argument's own text is not scanned for markers.
  EXPECT_EQ(configError("x", "a %1 b %2", {"%2", "c"}).message, "a %2 b c");
}

TEST(ConfigSchema, UnknownKeysAreNamedWithTheirPath) {
  JsonParseError error;
  RunConfig config;
  auto errors = readConfigJson(*parseJson(R"({"lrr": 0.1, "scaler": {"init_scale": 2}})", &error), config,
                               false, "config.");
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].field, "config.lrr");
  EXPECT_NE(errors[0].message.find("unknown field"), std::string::npos);
  EXPECT_NE(errors[0].message.find("lr"), std::string::npos);  // the allowed names are listed
  EXPECT_EQ(errors[1].field, "config.scaler.init_scale");
  EXPECT_NE(errors[1].message.find("init-scale"), std::string::npos);
}

TEST(ConfigSchema, RequireAllNamesEveryMissingKeyWithThePrefix) {
  std::string text;
  JsonWriter writer(text);
  writeConfigJson(writer, RunConfig{});
  // Drop "steps" and the scaler's "enabled".
  for (const char* member : {",\"steps\":500", ",\"enabled\":true"}) {
    const auto at = text.find(member);
    ASSERT_NE(at, std::string::npos);
    text.erase(at, std::strlen(member));
  }
  JsonParseError error;
  RunConfig config;
  const auto errors = readConfigJson(*parseJson(text, &error), config, /*requireAll=*/true, "config.");
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].field, "config.steps");
  EXPECT_EQ(errors[0].message, "missing");
  EXPECT_EQ(errors[1].field, "config.scaler.enabled");
  // Without requireAll the same object is fine: present keys refine the config.
  EXPECT_TRUE(readConfigJson(*parseJson(text, &error), config, false, "config.").empty());
}

TEST(ConfigSchema, WrongJsonTypesAndModeListsNameTheMember) {
  JsonParseError error;
  RunConfig config;
  auto errors = readConfigJson(
      *parseJson(R"({"lr": "fast", "batch": 2.5, "modes": ["fp32", "fp8"], "clip": 3})", &error), config,
      false, "config.");
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_EQ(errors[0].field, "config.lr");
  EXPECT_EQ(errors[0].message, "expected a number (got a string)");
  EXPECT_EQ(errors[1].field, "config.batch");
  EXPECT_EQ(errors[2].field, "config.modes[1]");
  EXPECT_NE(errors[2].message.find("fp16-amp-scaled"), std::string::npos);  // the known modes
  EXPECT_EQ(errors[3].field, "config.clip");
  errors = readConfigJson(*parseJson(R"({"modes": ["fp32", "fp32"]})", &error), config, false);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].field, "modes[1]");
}

TEST(ConfigSchema, AWholeNumberWithAnExponentIsRefusedSayingHowToWriteIt) {
  // JSON (RFC 8259) lets 9.2e+18 stand for a whole number; an int64 field reads digits only, and the
  // message says so rather than calling 9.2e+18 "not whole".
  JsonParseError error;
  RunConfig config;
  for (const char* text : {R"({"steps": 9.2e+18})", R"({"steps": 3e2})", R"({"steps": 99999999999999999999})"}) {
    const auto errors = readConfigJson(*parseJson(text, &error), config, false, "config.");
    ASSERT_EQ(errors.size(), 1u) << text;
    EXPECT_EQ(errors[0].field, "config.steps");
    EXPECT_NE(errors[0].message.find("written in digits without a fraction or an exponent"), std::string::npos)
        << errors[0].message;
  }
  EXPECT_TRUE(readConfigJson(*parseJson(R"({"steps": 300})", &error), config, false).empty());
  EXPECT_EQ(config.steps, 300);
}

TEST(ConfigSchema, ValidateNamesFullKeysAndSkipsMaxNormWhileClippingIsOff) {
  RunConfig config;
  config.scaler.growthInterval = 0;
  config.clipMaxNorm = -1;
  config.clipOrder = ClipOrder::Off;
  auto errors = validate(config);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].field, "scaler.growth-interval");
  config.clipOrder = ClipOrder::AfterUnscale;
  errors = validate(config);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[1].field, "clip.max-norm");
  EXPECT_EQ(errors[1].message, "must be > 0 (got -1)");
}

TEST(ConfigSchema, SwitchFlagsTakeNoAndTheDeprecatedSpelling) {
  bool deprecated = false;
  bool negated = false;
  const ConfigField* field = findConfigFlag("--scaler-for-fp16-pure", &deprecated, &negated);
  ASSERT_NE(field, nullptr);
  EXPECT_EQ(field->key, "scaler-for-pure-fp16");
  EXPECT_TRUE(deprecated);
  EXPECT_FALSE(negated);
  field = findConfigFlag("--no-scaler", &deprecated, &negated);
  ASSERT_NE(field, nullptr);
  EXPECT_EQ(field->key, "scaler.enabled");
  EXPECT_FALSE(deprecated);
  EXPECT_TRUE(negated);
  EXPECT_EQ(findConfigFlag("--no-lr"), nullptr);         // only switches negate
  EXPECT_EQ(findConfigFlag("--no-reference"), nullptr);  // reproduce's own option
}

TEST(ConfigSchema, UsesGradScalerIsTheModesDecision) {
  RunConfig config;
  EXPECT_TRUE(usesGradScaler(config, PrecisionMode::FP16AmpScaled));
  EXPECT_FALSE(usesGradScaler(config, PrecisionMode::FP16Pure));
  EXPECT_FALSE(usesGradScaler(config, PrecisionMode::FP16Amp));
  EXPECT_FALSE(usesGradScaler(config, PrecisionMode::BF16Amp));
  config.scalerForPureFp16 = true;
  EXPECT_TRUE(usesGradScaler(config, PrecisionMode::FP16Pure));
  EXPECT_FALSE(usesGradScaler(config, PrecisionMode::BF16Pure));
}

TEST(ConfigSchema, FieldPythonWritesPythonLiterals) {
  RunConfig config;
  config.lr = 2;
  EXPECT_EQ(fieldPython(config, *findConfigField("lr")), "2.0");  // a float, not an int
  EXPECT_EQ(fieldPython(config, *findConfigField("adam-eps")), "1e-08");
  EXPECT_EQ(fieldPython(config, *findConfigField("scaler.enabled")), "True");
  EXPECT_EQ(fieldPython(config, *findConfigField("optimizer")), "'adamw'");
  EXPECT_EQ(fieldPython(config, *findConfigField("modes")), "['fp32', 'fp16-amp-scaled', 'bf16-amp']");
  EXPECT_EQ(fieldPython(config, *findConfigField("batch")), "32");
  EXPECT_EQ(findConfigField("batch")->pythonName, "batch_size");
}

// precision-path came after AmpScope 0.1's sessions: a session that keeps auto is written without it
// (so 0.1, which refuses unknown keys, still opens it) and a session without it reads as auto.
TEST(ConfigSchema, PrecisionPathIsWrittenOnlyWhenSetAndMayBeAbsentFromASession) {
  RunConfig config;
  config.precisionPath = PrecisionPath::Emulated;
  std::string text;
  JsonWriter writer(text);
  writeConfigJson(writer, config);
  // The fields added after 0.1 are written together once one of them is set (config_schema.cpp).
  EXPECT_NE(text.find(",\"threads\":1,\"precision-path\":\"emulated\",\"fp8\":{"), std::string::npos) << text;
  JsonParseError error;
  RunConfig back;
  EXPECT_TRUE(readConfigJson(*parseJson(text, &error), back, /*requireAll=*/true).empty());
  EXPECT_EQ(back.precisionPath, PrecisionPath::Emulated);

  std::string defaults;
  JsonWriter defaultWriter(defaults);
  writeConfigJson(defaultWriter, RunConfig{});
  EXPECT_EQ(defaults.find("precision-path"), std::string::npos) << defaults;
  RunConfig fromSession;  // the session reader starts from the defaults
  const auto errors = readConfigJson(*parseJson(defaults, &error), fromSession, /*requireAll=*/true);
  EXPECT_TRUE(errors.empty()) << errors.front().field << ": " << errors.front().message;
  EXPECT_EQ(fromSession.precisionPath, PrecisionPath::Auto);

  const auto bad = readConfigJson(*parseJson(R"({"precision-path": "fastest"})", &error), back, false);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].field, "precision-path");
  EXPECT_NE(bad[0].message.find("auto, native, emulated"), std::string::npos) << bad[0].message;
}

}  // namespace
// init-gain came after AmpScope 0.1 too: the default 1 is left out of a written config and a config
// without the key reads as 1; any other gain is written and read back, and the bounds are (0, 1000].
TEST(ConfigSchema, InitGainIsWrittenOnlyWhenSetAndMayBeAbsent) {
  std::string defaults;
  JsonWriter defaultWriter(defaults);
  writeConfigJson(defaultWriter, RunConfig{});
  EXPECT_EQ(defaults.find("init-gain"), std::string::npos) << defaults;
  JsonParseError error;
  RunConfig fromOld;  // the session reader starts from the defaults
  EXPECT_TRUE(readConfigJson(*parseJson(defaults, &error), fromOld, /*requireAll=*/true).empty());
  EXPECT_EQ(fromOld.initGain, 1.0);

  RunConfig config;
  config.initGain = 8;
  std::string text;
  JsonWriter writer(text);
  writeConfigJson(writer, config);
  EXPECT_NE(text.find("\"loss-weight\":1,\"init-gain\":8,"), std::string::npos) << text;
  RunConfig back;
  EXPECT_TRUE(readConfigJson(*parseJson(text, &error), back, /*requireAll=*/true).empty());
  EXPECT_EQ(back.initGain, 8.0);

  for (const char* bad : {R"({"init-gain": 0})", R"({"init-gain": 1000.5})", R"({"init-gain": -1})"}) {
    RunConfig c;
    const auto errors = readConfigJson(*parseJson(bad, &error), c, false);
    ASSERT_EQ(errors.size(), 1u) << bad;
    EXPECT_EQ(errors[0].field, "init-gain");
  }
  RunConfig top;
  EXPECT_TRUE(readConfigJson(*parseJson(R"({"init-gain": 1000})", &error), top, false).empty());
  EXPECT_EQ(top.initGain, 1000.0);
  EXPECT_EQ(findConfigField("init-gain")->pythonName, "init_gain");
}

// run.py's CONFIG lists the fields in its own layout order (config_schema.cpp, pythonConfigDict); a row
// with a Python name that the layout forgets would silently fall out of the reproduce export.
TEST(ConfigSchema, EveryFieldWithAPythonNameIsInRunPysConfig) {
  RunConfig withPlan;
  withPlan.modes.push_back(PrecisionMode::Plan);
  const std::string py = pythonConfigDict(withPlan);
  for (const ConfigField& field : configFields()) {
    if (field.pythonName.empty()) continue;
    EXPECT_NE(py.find("'" + std::string(field.pythonName) + "': "), std::string::npos)
        << field.key << " (" << field.pythonName << ") is missing from run.py's CONFIG:\n" << py;
  }
  // The plan's rows only where the plan mode is trained: other scripts keep their bytes.
  const std::string without = pythonConfigDict(RunConfig{});
  EXPECT_EQ(without.find("plan_"), std::string::npos) << without;
  EXPECT_NE(py.find("'plan_layers': {},"), std::string::npos) << py;
}

}  // namespace ampscope
