// `ampscope-cli follow`: a probe stream read with --once prints a line per record and a summary
// (fixture fixtures/probe-merged.jsonl, written from the stream format's description by a separate
// Python script, with a line cut short and a seq gap); --jsonl copies the accepted lines so they read
// back as a stream; bad arguments exit 2 naming the flag; an existing output needs --force; a write
// error exits 1; a live follow stops on SIGINT with its summary.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "ampscope/engine/record_codec.h"
#include "cli_runner.h"

namespace ampscope {
namespace {

using testing::CliRunner;

const std::string kFixture = std::string(AMPSCOPE_APP_FIXTURES) + "/probe-merged.jsonl";

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string tempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("ampscope_follow_test_" + name)).string();
}

TEST(CliFollow, OnceReadsAProbeStreamAndSummarisesIt) {
  const auto result = CliRunner().run({"follow", "--once", kFixture});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  const auto lines = CliRunner::lines(result.out);
  ASSERT_GE(lines.size(), 8u) << result.out;
  // Step 1: net.0.weight has 5 + 20 of 100 values flushed or subnormal in FP16 (25%), net.0.bias 1 of 10.
  EXPECT_EQ(lines[0], "run demo r0/2  step 1  fp16-amp-scaled  loss 2.5  scale 65536  grad-norm 0.5  "
                      "underflow net.0.weight 25%");
  EXPECT_EQ(lines[1], "run demo r0/2  step 11  fp16-amp-scaled  loss 2.25  scale 65536  grad-norm 0.5  "
                      "underflow net.0.bias 100%");
  EXPECT_EQ(lines[2], "run demo r0/2  step 31  fp16-amp-scaled  loss nan  scale 32768  SKIPPED  grad-norm inf  "
                      "underflow net.0.weight 0%  nonfinite net.2.weight (+1)");
  EXPECT_EQ(lines[4], "followed " + kFixture +
                          ": 3 records (steps 1-31), 1 skipped, 1 dropped, 1 malformed, 0 oversized, 0 reconnects");
  EXPECT_EQ(lines[5], "last: step 31 fp16-amp-scaled loss nan scale 32768");
  EXPECT_EQ(lines[6], "first non-finite gradient: step 31, net.2.weight");
  EXPECT_EQ(lines[7], "worst FP16 underflow: step 11, net.0.bias, 100% of its gradient values flush or are "
                      "subnormal in FP16");
  EXPECT_NE(result.err.find("following " + kFixture), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("run demo (run-id 0123456789abcdef), rank 0 of 2 (merged)"), std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("skipped line 4, column 34: not JSON"), std::string::npos) << result.err;
}

TEST(CliFollow, OnceReadsAVersion1StreamToo) {
  const auto result = CliRunner().run({"follow", "--once", std::string(AMPSCOPE_RECORD_FIXTURES) + "/cli-0.1.0.jsonl"});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.out.find("records (steps 1-"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find(", 0 malformed,"), std::string::npos) << result.out;
}

TEST(CliFollow, JsonlCopiesTheAcceptedLinesAsAReadableStream) {
  const std::string out = tempPath("copy.jsonl");
  std::remove(out.c_str());
  auto result = CliRunner().run({"follow", kFixture, "--once", "--jsonl", out});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  RecordError error;
  const auto stream = readRecordStream(readFile(out), &error);
  ASSERT_TRUE(stream) << error.text();
  EXPECT_EQ(stream->source.run, "demo");
  ASSERT_EQ(stream->steps.size(), 3u);
  EXPECT_EQ(stream->steps[2].seq, 4);
  // An existing output is not overwritten without --force.
  result = CliRunner().run({"follow", kFixture, "--once", "--jsonl", out});
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_NE(result.err.find("--jsonl: '" + out + "' exists (add --force to overwrite it)"), std::string::npos)
      << result.err;
  result = CliRunner().run({"follow", kFixture, "--once", "--jsonl", out, "--force"});
  EXPECT_EQ(result.exitCode, 0) << result.err;
  std::remove(out.c_str());
  // Writing the copy fails: exit 1.
  result = CliRunner().run({"follow", kFixture, "--once", "--jsonl", "/dev/full", "--force"});
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_NE(result.err.find("writing --jsonl file '/dev/full' failed"), std::string::npos) << result.err;
  // The followed file itself is refused as the output.
  result = CliRunner().run({"follow", kFixture, "--once", "--jsonl", kFixture, "--force"});
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_NE(result.err.find("is the file being followed"), std::string::npos) << result.err;
}

// The per-record budget (follow_budget.h, RecordBudget::tensors = 1,024): a record of 1,030 parameter
// gradients keeps the first 1,024 and folds six, which the record's line and the summary say; a record
// whose 1,030th entry is damaged is still refused naming it; the --jsonl copy keeps the lines whole.
TEST(CliFollow, ARecordOverTheBudgetIsFoldedAndSaid) {
  StreamSource source;
  source.source = "probe";
  source.run = "wide";
  source.runId = "00000000000000aa";
  source.every = 1;
  source.parameters = {"l0.weight"};
  ModeStep step;
  step.mode = PrecisionMode::FP16AmpScaled;
  step.step = 1;
  step.loss = 2;
  step.lossScale = 1024;
  step.instrumented = true;
  step.seq = 1;
  for (int i = 0; i < 1030; ++i) {
    TensorStats t;
    t.name = "l" + std::to_string(i) + ".weight";
    t.numel = 8;
    t.scaled.counts.set(-10, 8);
    t.unscaled = t.scaled;
    step.tensors.push_back(t);
  }
  std::string text = probeStreamHeader(source, "test");
  appendRecordStreamLine(text, step);
  ModeStep damaged = step;
  damaged.step = 2;
  damaged.seq = 2;
  std::string line;
  appendRecordStreamLine(line, damaged);
  const std::string numel = "\"name\":\"l1029.weight\",\"is-parameter\":true,\"numel\":8";
  line.replace(line.find(numel), numel.size(), "\"name\":\"l1029.weight\",\"is-parameter\":true,\"numel\":-8");
  text += line;
  const std::string path = tempPath("wide.jsonl");
  const std::string copy = tempPath("wide-copy.jsonl");
  std::remove(copy.c_str());
  {
    std::ofstream out(path, std::ios::binary);
    out << text;
  }
  const auto result = CliRunner().run({"follow", "--once", path, "--jsonl", copy});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  const auto lines = CliRunner::lines(result.out);
  ASSERT_GE(lines.size(), 4u) << result.out;
  EXPECT_EQ(lines[0], "run wide step 1  fp16-amp-scaled  loss 2  scale 1024  grad-norm 0  folded 6 tensors");
  EXPECT_EQ(lines[2], "followed " + path + ": 1 record (steps 1-1), 0 skipped, 0 dropped, 1 malformed, 0 oversized, "
                                           "0 reconnects");
  EXPECT_EQ(lines[3], "record budget: 1 record over it (kept per record: the first 1024 tensors, 1024 rounding "
                      "points, 256 quantized, 1024 nonfinite names); folded 6 tensor entries (6 parameter "
                      "gradients, histograms summed), 0 rounding points (counts summed), 0 quantized entries, 0 "
                      "nonfinite names");
  EXPECT_NE(result.err.find("skipped line 3: tensors[1029].numel"), std::string::npos) << result.err;
  // The copy holds the accepted line as it came: all 1,030 entries.
  RecordError error;
  const auto stream = readRecordStream(readFile(copy), &error);
  ASSERT_TRUE(stream) << error.text();
  ASSERT_EQ(stream->steps.size(), 1u);
  EXPECT_EQ(stream->steps[0].tensors.size(), 1030u);
  std::remove(path.c_str());
  std::remove(copy.c_str());
}

TEST(CliFollow, BadArgumentsExit2NamingTheFlag) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"follow"}, "no FILE|HOST:PORT given"},
      {{"follow", "--bogus", kFixture}, "unknown option '--bogus'"},
      {{"follow", "-x", kFixture}, "unknown option '-x'"},
      {{"follow", kFixture, "--every-seconds"}, "option --every-seconds needs a value"},
      {{"follow", kFixture, "--every-seconds", "-1"}, "option --every-seconds: expected seconds from 0 to 86400, got '-1'"},
      {{"follow", kFixture, "--every-seconds", "soon"}, "option --every-seconds: expected seconds"},
      {{"follow", kFixture, "--every-seconds", "nan"}, "option --every-seconds: expected seconds"},
      {{"follow", kFixture, "--jsonl"}, "option --jsonl needs a value"},
      {{"follow", kFixture, "--jsonl", ""}, "--jsonl"},
      {{"follow", kFixture, "--once", "--once"}, "--once"},
      {{"follow", kFixture, "other.jsonl"}, "one FILE|HOST:PORT only"},
      {{"follow", "localhost:70000"}, "FILE|HOST:PORT: port 70000 is outside 1-65535"},
      {{"follow", "[::1]"}, "FILE|HOST:PORT: \"[::1]\": expected [IPv6 address]:port"},
      {{"follow", AMPSCOPE_APP_FIXTURES}, "is a directory"},
      {{"follow", "/dev/null"}, "/dev/null is not a regular file"},
      {{"follow", "--once", "127.0.0.1:5000"}, "option --once reads a file to its end; it cannot follow HOST:PORT"},
      {{"follow", "--once", tempPath("absent.jsonl")}, "does not exist"},
  };
  for (const auto& c : cases) {
    const auto result = CliRunner().run(c.args);
    EXPECT_EQ(result.exitCode, 2) << c.message << "\n" << result.err;
    EXPECT_NE(result.err.find(c.message), std::string::npos) << result.err;
    EXPECT_EQ(result.err.rfind("ampscope-cli follow: ", 0), 0u) << result.err;
  }
}

TEST(CliFollow, HelpIsListed) {
  auto result = CliRunner().run({"follow", "--help"});
  EXPECT_EQ(result.exitCode, 0);
  EXPECT_EQ(result.out.rfind("Usage: ampscope-cli follow FILE|HOST:PORT [OPTIONS]", 0), 0u) << result.out;
  for (const char* flag : {"--jsonl OUT", "--force", "--every-seconds S", "--once"}) {
    EXPECT_NE(result.out.find(flag), std::string::npos) << flag;
  }
  result = CliRunner().run({"--help"});
  EXPECT_NE(result.out.find("  follow FILE|HOST:PORT"), std::string::npos) << result.out;
}

TEST(CliFollow, ALiveFollowStopsOnSigintWithItsSummary) {
  // The file appears (probably after the follower started: StreamFollower's tests check the waiting);
  // SIGINT ends the follow with the summary and exit code 0.
  const std::string path = tempPath("live.jsonl");
  std::remove(path.c_str());
  const std::string command = "(sleep 0.3; cp '" + kFixture + "' '" + path + "') & timeout --preserve-status -s INT 3 '" +
                              std::string(AMPSCOPE_CLI_PATH) + "' follow '" + path + "' --every-seconds 0 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  const int status = pclose(pipe);
  std::remove(path.c_str());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status << "\n" << out;
  EXPECT_NE(out.find("following " + path), std::string::npos) << out;
  EXPECT_NE(out.find("step 31  fp16-amp-scaled"), std::string::npos) << out;
  EXPECT_NE(out.find("followed " + path + ": 3 records"), std::string::npos) << out;
}

}  // namespace
}  // namespace ampscope
