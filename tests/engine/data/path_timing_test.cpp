// The precision-path choice and its per-machine cache, with made-up timings and comparisons (nothing is
// timed or trained here), and the cache of the native kernels' self-check with made-up results.
#include "ampscope/engine/path_timing.h"
#include "ampscope/engine/kernel_check.h"
#include "ampscope/engine/version.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ampscope/engine/json.h"
#include "ampscope/engine/run_summary.h"

namespace ampscope {
namespace {

namespace fs = std::filesystem;

// A folder of this test's own, removed afterwards.
class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() / ("ampscope-path-timing-" + std::to_string(::getpid()) + "-" +
                                         std::to_string(counter_++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(path_, fs::perms::owner_all, ec);
    fs::remove_all(path_, ec);
  }
  fs::path operator/(const std::string& name) const { return path_ / name; }
  const fs::path& path() const { return path_; }

 private:
  static inline int counter_ = 0;
  fs::path path_;
};

std::string readAll(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void writeAll(const fs::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << text;
}

const std::string kKey = machineKey("Test CPU @ 1 GHz", "fpu sse2 avx2", "1.13.1", 1);

// Timings of paths that trained bit-identically for 7 steps, or whose losses parted at `firstDiffering`.
PathTiming same(double nativeUs, double emulatedUs) {
  PathTiming t{nativeUs, emulatedUs};
  t.comparedSteps = 7;
  return t;
}
PathTiming parted(double nativeUs, double emulatedUs, int firstDiffering, double difference) {
  PathTiming t = same(nativeUs, emulatedUs);
  t.firstDifferingStep = firstDiffering;
  t.largestLossDifference = difference;
  return t;
}

// The figures for this direction: a Zen 3 without BF16 instructions, bf16-amp native 4761 us
// against the emulation near FP32 (about 915 us): the emulation is 5.2x faster.
TEST(PathChoice, AutoTakesTheEmulationWhenItIsBitIdenticalAndClearlyFaster) {
  const PathDecision d = decidePath(PrecisionMode::BF16Amp, true, PrecisionPath::Auto, same(4761, 915));
  EXPECT_FALSE(d.native);
  EXPECT_EQ(d.note, "emulated: bit-identical to native over 7 steps and 5.2x faster on this CPU");
}

// `auto` is exact with respect to this machine's PyTorch: an emulation that trains differently from
// the native kernels here (a CPU whose BF16 dot products sum in another order) is never taken, however
// fast; the note says from which step the losses parted.
TEST(PathChoice, AutoNeverTakesAnEmulationThatIsNotBitIdenticalHere) {
  const PathDecision d =
      decidePath(PrecisionMode::BF16Amp, true, PrecisionPath::Auto, parted(4761, 915, 2, 2.384185791015625e-07));
  EXPECT_TRUE(d.native);
  EXPECT_EQ(d.note, "native: the emulation is not bit-identical to this CPU's kernels (the loss differs from step 2, "
                    "by up to 2.384185791015625e-07)");
  // Equal losses with weights that parted (found after the last step): said as such.
  EXPECT_EQ(decidePath(PrecisionMode::BF16Amp, true, PrecisionPath::Auto, parted(4761, 915, 7, 0)).note,
            "native: the emulation is not bit-identical to this CPU's kernels (the losses agree for 7 steps, the "
            "weights do not)");
  // Timings without a comparison (an old cache entry, a timer that did not train) keep native too.
  const PathDecision unknown = decidePath(PrecisionMode::BF16Amp, true, PrecisionPath::Auto, PathTiming{4761, 915});
  EXPECT_TRUE(unknown.native);
  EXPECT_EQ(unknown.note, "native: the paths were not compared on this machine");
  // An explicit setting still forces the emulation, which is what a user asking for it wants.
  EXPECT_FALSE(decidePath(PrecisionMode::BF16Amp, true, PrecisionPath::Emulated, parted(1, 9, 1, 1)).native);
}

// This machine's direction (a CPU with BF16 instructions): native 845 us, emulated slower.
TEST(PathChoice, AutoKeepsNativeWhenItIsFaster) {
  const PathDecision d = decidePath(PrecisionMode::BF16Pure, true, PrecisionPath::Auto, same(845, 1690));
  EXPECT_TRUE(d.native);
  EXPECT_EQ(d.note, "native: 2.0x faster than emulated on this CPU (bit-identical to native over 7 steps)");
}

// kEmulationMustBeFaster = 1.10: 1.05x is a near tie, native stays; exactly 1.10x switches.
TEST(PathChoice, ANearTieKeepsNative) {
  const PathDecision tie = decidePath(PrecisionMode::BF16Amp, true, PrecisionPath::Auto, same(1050, 1000));
  EXPECT_TRUE(tie.native);
  EXPECT_EQ(tie.note, "native: emulated only 1.1x faster on this CPU (too close to switch; bit-identical to native "
                      "over 7 steps)");
  EXPECT_FALSE(decidePath(PrecisionMode::BF16Amp, true, PrecisionPath::Auto, same(1100, 1000)).native);
}

TEST(PathChoice, ASettingForcesEitherPathWhatEverTheTimings) {
  const PathTiming emulationFaster{4761, 915};
  const PathDecision native = decidePath(PrecisionMode::BF16Amp, true, PrecisionPath::Native, emulationFaster);
  EXPECT_TRUE(native.native);
  EXPECT_EQ(native.note, "native: set by precision-path");
  const PathDecision emulated = decidePath(PrecisionMode::BF16Amp, true, PrecisionPath::Emulated, PathTiming{1, 9});
  EXPECT_FALSE(emulated.native);
  EXPECT_EQ(emulated.note, "emulated: set by precision-path");
}

// FP16 autocast is missing on LibTorch 1.13's CPU: native cannot be had, and asking for it says so.
TEST(PathChoice, NativeWhereThereIsNoneFallsBackToTheEmulationWithANote) {
  const PathDecision asked = decidePath(PrecisionMode::FP16Amp, false, PrecisionPath::Native, std::nullopt);
  EXPECT_FALSE(asked.native);
  EXPECT_EQ(asked.note, "emulated: precision-path asks for native, but this LibTorch has no native path");
  const PathDecision plain = decidePath(PrecisionMode::FP16Pure, false, PrecisionPath::Auto, std::nullopt);
  EXPECT_FALSE(plain.native);
  EXPECT_EQ(plain.note, "emulated: this LibTorch has no native path");
}

TEST(PathChoice, FP32HasOnePathAndNoNote) {
  for (PrecisionPath p : {PrecisionPath::Auto, PrecisionPath::Native, PrecisionPath::Emulated}) {
    const PathDecision d = decidePath(PrecisionMode::FP32, true, p, PathTiming{1, 100});
    EXPECT_TRUE(d.native);
    EXPECT_TRUE(d.note.empty());
  }
}

TEST(PathChoice, WithoutTimingsAutoKeepsNative) {
  EXPECT_TRUE(decidePath(PrecisionMode::BF16Amp, true, PrecisionPath::Auto, std::nullopt).native);
  EXPECT_TRUE(decidePath(PrecisionMode::BF16Amp, true, PrecisionPath::Auto, PathTiming{0, 5}).native);
}

TEST(PathChoice, TheSummaryLineSaysWhichPathAndWhy) {
  ModeCapability c;
  c.mode = PrecisionMode::BF16Amp;
  c.native = false;
  c.nativeStepUs = 4761.4;
  c.emulatedStepUs = 915.2;
  c.pathNote = "emulated: 5.2x faster than native on this CPU";
  EXPECT_EQ(pathLine(c), "bf16-amp \u00b7 emulated: 5.2x faster than native on this CPU (native 4761 us, "
                         "emulated 915 us a step)");
  c.nativeStepUs = 0;
  EXPECT_EQ(pathLine(c), "bf16-amp \u00b7 emulated: 5.2x faster than native on this CPU");
  c.kernelNote = "native and emulated BF16 linear differ in 0.01 % of 100 outputs";
  EXPECT_EQ(pathLine(c), "bf16-amp \u00b7 emulated: 5.2x faster than native on this CPU; native and emulated BF16 "
                         "linear differ in 0.01 % of 100 outputs");
  c.mode = PrecisionMode::FP32;
  EXPECT_EQ(pathLine(c), "");
}

TEST(MachineKey, NamesTheCpuLibTorchAndThreadsAndDigestsTheFlags) {
  EXPECT_EQ(kKey.rfind("cpu=Test CPU @ 1 GHz;flags=", 0), 0u) << kKey;
  EXPECT_NE(kKey.find(";libtorch=1.13.1;threads=1"), std::string::npos) << kKey;
  EXPECT_NE(machineKey("Test CPU @ 1 GHz", "fpu sse2 avx2 avx512_bf16", "1.13.1", 1), kKey);
  EXPECT_NE(machineKey("Test CPU @ 1 GHz", "fpu sse2 avx2", "1.13.1", 2), kKey);
  EXPECT_NE(machineKey("Test CPU @ 1 GHz", "fpu sse2 avx2", "2.1.0", 1), kKey);
  // Timings of an older emulation say nothing about a faster one.
  EXPECT_NE(machineKey("Test CPU @ 1 GHz", "fpu sse2 avx2", "1.13.1", 1, "tiny-mlp", kEmulationKernelRevision - 1),
            kKey);
  EXPECT_NE(kKey.find(";ampscope=" + ampscopeVersion() + ";kernels="), std::string::npos) << kKey;
  // The paths are compared on the run's model: another model is another key.
  EXPECT_NE(kKey.find(";model=tiny-mlp;"), std::string::npos) << kKey;
  EXPECT_NE(machineKey("Test CPU @ 1 GHz", "fpu sse2 avx2", "1.13.1", 1, "tiny-transformer"), kKey);
}

TEST(PathTimingCache, ATimingStoredIsFoundAgainByAFreshReaderOfTheFile) {
  TempDir dir;
  const fs::path file = dir / "nested/precision-paths.json";  // the folder is created
  {
    PathTimingCache cache(file.string());
    EXPECT_FALSE(cache.find(kKey, PrecisionMode::BF16Amp));
    cache.store(kKey, PrecisionMode::BF16Amp, parted(4761, 915, 3, 0.125));
    cache.store(kKey, PrecisionMode::BF16Pure, same(5000.5, 1200.25));
    EXPECT_TRUE(cache.writeProblem().empty()) << cache.writeProblem();
  }
  PathTimingCache again(file.string());
  const auto amp = again.find(kKey, PrecisionMode::BF16Amp);
  ASSERT_TRUE(amp);
  EXPECT_EQ(amp->nativeUs, 4761);
  EXPECT_EQ(amp->emulatedUs, 915);
  EXPECT_EQ(amp->comparedSteps, 7);
  EXPECT_EQ(amp->firstDifferingStep, 3);
  EXPECT_EQ(amp->largestLossDifference, 0.125);
  const auto pure = again.find(kKey, PrecisionMode::BF16Pure);
  ASSERT_TRUE(pure);
  EXPECT_EQ(pure->emulatedUs, 1200.25);
  EXPECT_TRUE(pure->identical());
  EXPECT_FALSE(again.find(kKey, PrecisionMode::FP16Amp));
  EXPECT_FALSE(again.find(machineKey("Other", "", "1.13.1", 1), PrecisionMode::BF16Amp));
  EXPECT_TRUE(again.readProblem().empty()) << again.readProblem();

  // Another machine's entry is added beside, not over, this one's.
  again.store(machineKey("Other", "", "1.13.1", 1), PrecisionMode::BF16Amp, same(1, 2));
  PathTimingCache third(file.string());
  EXPECT_TRUE(third.find(kKey, PrecisionMode::BF16Amp));
  EXPECT_TRUE(third.find(machineKey("Other", "", "1.13.1", 1), PrecisionMode::BF16Amp));
  // The layout the header documents.
  JsonParseError error;
  const auto doc = parseJson(readAll(file), &error);
  ASSERT_TRUE(doc) << error.message;
  EXPECT_EQ(doc->find("format")->string(), "ampscope-precision-paths");
  EXPECT_EQ(doc->find("version")->integer(), 2);
  EXPECT_EQ(doc->find("machines")->items().size(), 2u);
}

TEST(PathTimingCache, ADamagedFileIsIgnoredAndRewritten) {
  TempDir dir;
  const fs::path file = dir / "precision-paths.json";
  for (const std::string& damaged :
       {std::string("{\"format\":\"ampscope-precision-paths\",\"version\":1,\"machines\":["),  // cut short
        std::string("\x00\xff garbage", 10), std::string("[]"),
        std::string("{\"format\":\"something-else\",\"version\":1,\"machines\":[]}"),
        std::string("{\"format\":\"ampscope-precision-paths\",\"version\":3,\"machines\":[]}"),
        // Version 1 held timings without the bit-for-bit comparison: not trusted for the new choice.
        std::string("{\"format\":\"ampscope-precision-paths\",\"version\":1,\"machines\":[]}")}) {
    writeAll(file, damaged);
    PathTimingCache cache(file.string());
    EXPECT_FALSE(cache.find(kKey, PrecisionMode::BF16Amp));
    EXPECT_FALSE(cache.readProblem().empty());
    cache.store(kKey, PrecisionMode::BF16Amp, same(3, 1));
    EXPECT_TRUE(cache.writeProblem().empty());
    PathTimingCache reread(file.string());
    ASSERT_TRUE(reread.find(kKey, PrecisionMode::BF16Amp));
    EXPECT_TRUE(reread.readProblem().empty()) << reread.readProblem();
  }
}

// One bad entry (a negative, a string, an unknown mode) is skipped; the good ones are kept.
TEST(PathTimingCache, BadEntriesAreSkippedOneByOne) {
  TempDir dir;
  const fs::path file = dir / "precision-paths.json";
  const std::string compared = ",\"compared-steps\":7,\"first-differing-step\":0,\"largest-loss-difference\":0";
  writeAll(file, "{\"format\":\"ampscope-precision-paths\",\"version\":2,\"machines\":[{\"key\":\"" + kKey +
                     "\",\"modes\":{\"bf16-amp\":{\"native-us\":-1,\"emulated-us\":2" + compared + "},"
                     "\"bf16-pure\":{\"native-us\":\"x\",\"emulated-us\":2" + compared + "},"
                     "\"fp99\":{\"native-us\":1,\"emulated-us\":2" + compared + "},"
                     "\"fp16-pure\":{\"native-us\":1,\"emulated-us\":2},"  // no comparison
                     "\"bf16-amp-x\":{\"native-us\":1,\"emulated-us\":2" + compared + "},"
                     "\"fp16-amp-scaled\":{\"native-us\":1,\"emulated-us\":2,\"compared-steps\":7,"
                     "\"first-differing-step\":9,\"largest-loss-difference\":0},"  // differs after the last step
                     "\"fp16-amp\":{\"native-us\":7,\"emulated-us\":8" + compared + "}}},{\"key\":3}]}");
  PathTimingCache cache(file.string());
  EXPECT_FALSE(cache.find(kKey, PrecisionMode::BF16Amp));
  EXPECT_FALSE(cache.find(kKey, PrecisionMode::BF16Pure));
  EXPECT_FALSE(cache.find(kKey, PrecisionMode::FP16Pure));
  EXPECT_FALSE(cache.find(kKey, PrecisionMode::FP16AmpScaled));
  const auto fp16 = cache.find(kKey, PrecisionMode::FP16Amp);
  ASSERT_TRUE(fp16);
  EXPECT_EQ(fp16->nativeUs, 7);
}

// A folder that cannot be written keeps the timing in memory and says why; nothing throws.
TEST(PathTimingCache, AWriteThatFailsIsNotFatal) {
  TempDir dir;
  const fs::path blocker = dir / "a-file";
  writeAll(blocker, "x");
  PathTimingCache cache((blocker / "precision-paths.json").string());  // a folder inside a file
  cache.store(kKey, PrecisionMode::BF16Amp, same(2, 1));
  EXPECT_FALSE(cache.writeProblem().empty());
  EXPECT_TRUE(cache.find(kKey, PrecisionMode::BF16Amp));
}

TEST(PathTimingCache, WithoutAFileTimingsLiveInMemory) {
  PathTimingCache cache("");
  cache.store(kKey, PrecisionMode::BF16Amp, same(2, 1));
  EXPECT_TRUE(cache.find(kKey, PrecisionMode::BF16Amp));
  EXPECT_TRUE(cache.writeProblem().empty());
}

TEST(PathTimingCache, TheDefaultFileFollowsTheEnvironment) {
  const char* saved[] = {std::getenv("AMPSCOPE_CACHE_DIR"), std::getenv("XDG_CACHE_HOME"), std::getenv("HOME")};
  const std::string keep[] = {saved[0] ? saved[0] : "", saved[1] ? saved[1] : "", saved[2] ? saved[2] : ""};
  ::setenv("AMPSCOPE_CACHE_DIR", "/tmp/a", 1);
  ::setenv("XDG_CACHE_HOME", "/tmp/x", 1);
  ::setenv("HOME", "/tmp/h", 1);
  EXPECT_EQ(defaultPathTimingFile(), "/tmp/a/precision-paths.json");
  ::unsetenv("AMPSCOPE_CACHE_DIR");
  EXPECT_EQ(defaultPathTimingFile(), "/tmp/x/ampscope/precision-paths.json");
  ::unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(defaultPathTimingFile(), "/tmp/h/.cache/ampscope/precision-paths.json");
  const char* names[] = {"AMPSCOPE_CACHE_DIR", "XDG_CACHE_HOME", "HOME"};
  for (int i = 0; i < 3; ++i) {
    if (saved[i]) ::setenv(names[i], keep[i].c_str(), 1); else ::unsetenv(names[i]);
  }
}


// Two made-up checks: a GEMM compared with the emulation and one the LibTorch lacks.
std::vector<KernelCheck> madeUpChecks() {
  KernelCheck gemm;
  gemm.kernel = "bf16-linear";
  gemm.usedBy = "bf16-amp, bf16-pure";
  gemm.available = true;
  gemm.correct = true;
  gemm.outputs = 4352;
  gemm.differingShare = 0.000125;
  gemm.maxUlps = 1;
  gemm.worstBoundRatio = 0.25;
  gemm.comparedWithEmulation = true;
  gemm.emulationDifferingShare = 0.0001;
  gemm.emulationMaxUlps = 1;
  KernelCheck missing;
  missing.kernel = "amp-unscale";
  missing.note = "needs torch >= 2.3";
  return {gemm, missing};
}

void expectSameChecks(const std::vector<KernelCheck>& a, const std::vector<KernelCheck>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].kernel, b[i].kernel);
    EXPECT_EQ(a[i].usedBy, b[i].usedBy);
    EXPECT_EQ(a[i].available, b[i].available);
    EXPECT_EQ(a[i].correct, b[i].correct);
    EXPECT_EQ(a[i].outputs, b[i].outputs);
    EXPECT_EQ(a[i].differingShare, b[i].differingShare);  // shortest round-trip text: bit for bit
    EXPECT_EQ(a[i].maxUlps, b[i].maxUlps);
    EXPECT_EQ(a[i].worstBoundRatio, b[i].worstBoundRatio);
    EXPECT_EQ(a[i].comparedWithEmulation, b[i].comparedWithEmulation);
    EXPECT_EQ(a[i].emulationDifferingShare, b[i].emulationDifferingShare);
    EXPECT_EQ(a[i].emulationMaxUlps, b[i].emulationMaxUlps);
    EXPECT_EQ(a[i].note, b[i].note);
  }
}

TEST(KernelCheckCache, ChecksStoredAreFoundAgainByAFreshReaderOfTheFile) {
  TempDir dir;
  const fs::path file = dir / "sub" / "kernel-checks.json";
  KernelCheckCache cache(file.string());
  EXPECT_FALSE(cache.find(kKey));
  cache.store(kKey, madeUpChecks());
  EXPECT_TRUE(cache.writeProblem().empty()) << cache.writeProblem();
  KernelCheckCache reread(file.string());
  const auto found = reread.find(kKey);
  ASSERT_TRUE(found);
  expectSameChecks(*found, madeUpChecks());
  EXPECT_FALSE(reread.find(kKey + "x"));  // another machine, LibTorch or thread count: run again
}

// Anything that is not a whole table of ours is ignored (and replaced at the next store): a table with
// a check missing could let a wrong kernel through unchecked.
TEST(KernelCheckCache, ADamagedFileOrAnIncompleteEntryIsNotUsed) {
  TempDir dir;
  const fs::path file = dir / "kernel-checks.json";
  std::string good;
  {
    KernelCheckCache cache(file.string());
    cache.store(kKey, madeUpChecks());
    good = readAll(file);
  }
  const auto without = [&](const std::string& field) {
    std::string text = good;
    const auto at = text.find("\"" + field + "\"");
    EXPECT_NE(at, std::string::npos) << field;
    text.replace(at, 2 + field.size(), "\"renamed-" + field + "\"");
    return text;
  };
  for (const std::string& damaged :
       {good.substr(0, good.size() / 2), std::string("[]"), std::string("\x00\xff", 2),
        std::string("{\"format\":\"ampscope-kernel-checks\",\"version\":2,\"machines\":[]}"),
        without("correct"), without("outputs"), without("emulation-max-ulps"), without("kernel")}) {
    writeAll(file, damaged);
    KernelCheckCache cache(file.string());
    EXPECT_FALSE(cache.find(kKey)) << damaged;
    cache.store(kKey, madeUpChecks());
    KernelCheckCache reread(file.string());
    EXPECT_TRUE(reread.find(kKey));
  }
}

TEST(KernelCheckCache, ACheckReadBackIsCorrectOnlyWhereItIsAvailable) {
  std::string text;
  JsonWriter w(text);
  KernelCheck odd = madeUpChecks()[1];
  odd.correct = true;  // a hand-edited file: available false, correct true
  writeKernelCheck(w, odd);
  JsonParseError error;
  const auto doc = parseJson(text, &error);
  ASSERT_TRUE(doc);
  const auto check = readKernelCheck(*doc);
  ASSERT_TRUE(check);
  EXPECT_FALSE(check->correct);
}

TEST(KernelCheckCache, TheFileLiesBesideThePathTimings) {
  const char* saved = std::getenv("AMPSCOPE_CACHE_DIR");
  const std::string keep = saved ? saved : "";
  ::setenv("AMPSCOPE_CACHE_DIR", "/tmp/a", 1);
  EXPECT_EQ(defaultKernelCheckFile(), "/tmp/a/kernel-checks.json");
  if (saved) ::setenv("AMPSCOPE_CACHE_DIR", keep.c_str(), 1); else ::unsetenv("AMPSCOPE_CACHE_DIR");
}

TEST(KernelCheckCache, AWriteThatFailsIsNotFatal) {
  TempDir dir;
  const fs::path blocker = dir / "a-file";
  writeAll(blocker, "x");
  KernelCheckCache cache((blocker / "kernel-checks.json").string());
  cache.store(kKey, madeUpChecks());
  EXPECT_FALSE(cache.writeProblem().empty());
  EXPECT_TRUE(cache.find(kKey));
}

}  // namespace
}  // namespace ampscope
