// The session codec (session_codec.h): a session encodes and decodes to the same config and telemetry bit
// for bit (NaN, +-Inf, -0.0, histograms), the pieces the autosave appends make the same bytes, a damaged,
// foreign or newer document is refused with an error naming the field, and a session written by
// AmpScope 0.1.0 (fixture written by that version's SessionFile::toJson) still opens.
#include "ampscope/engine/session_codec.h"

#include <gtest/gtest.h>

#include <random>

#include "ampscope/engine/config_schema.h"
#include "ampscope/engine/json.h"
#include "support/record_samples.h"

namespace ampscope {
namespace {

Session sampleSession() {
  Session session;
  session.lesson = "underflow";
  session.config = samples::config();
  session.records = samples::records(session.config);
  return session;
}

std::string configText(const RunConfig& config) {
  std::string out;
  JsonWriter json(out);
  writeConfigJson(json, config);
  return out;
}

SessionError refused(const std::string& json) {
  SessionError error;
  EXPECT_FALSE(decodeSession(json, &error).has_value()) << json.substr(0, 300);
  return error;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(SessionCodec, EncodeThenDecodeGivesTheSameSessionBitForBit) {
  const Session original = sampleSession();
  const std::string json = encodeSession(original);
  SessionError error;
  const auto decoded = decodeSession(json, &error);
  ASSERT_TRUE(decoded) << error.text();
  EXPECT_EQ(decoded->lesson, original.lesson);
  EXPECT_EQ(configText(decoded->config), configText(original.config));
  ASSERT_EQ(decoded->records.size(), original.records.size());
  for (size_t i = 0; i < original.records.size(); ++i) {
    EXPECT_EQ(decoded->records[i].step, original.records[i].step);
    ASSERT_EQ(decoded->records[i].modes.size(), original.records[i].modes.size());
    for (size_t m = 0; m < original.records[i].modes.size(); ++m) {
      samples::expectSameStep(decoded->records[i].modes[m], original.records[i].modes[m]);
    }
  }
  EXPECT_EQ(encodeSession(*decoded), json) << "nothing drifts through a round trip";
}

TEST(SessionCodec, TheLayoutIsVersion1WithOneRecordPerLine) {
  const Session session = sampleSession();
  const std::string json = encodeSession(session);
  EXPECT_EQ(json.rfind(R"({"format":"ampscope-session","version":1,"app":"AmpScope )", 0), 0u);
  EXPECT_NE(json.find(R"("lesson":"underflow","config":)" + configText(session.config) + R"(,"records":[)" "\n"
                      R"({"step":1,"modes":[{"mode":"fp32","step":1,)"),
            std::string::npos);
  EXPECT_EQ(json.substr(json.size() - 3), "]}\n");
  size_t lines = 0;
  for (char c : json) lines += c == '\n' ? 1 : 0;
  EXPECT_EQ(lines, 1 + session.records.size());
  EXPECT_NE(json.find(R"("loss":"nan")"), std::string::npos);
  EXPECT_NE(json.find(R"("grad-norm-before-clip":"-inf")"), std::string::npos);
  EXPECT_NE(json.find(R"("grad-norm-after-clip":-0,)"), std::string::npos);
}

TEST(SessionCodec, ThePiecesMakeTheSameBytesAsTheWhole) {
  const Session session = sampleSession();
  std::string pieces = sessionHeaderJson(session.config, session.lesson);
  for (size_t i = 0; i < session.records.size(); ++i) appendSessionRecordJson(pieces, session.records[i], i);
  pieces += kSessionFooterJson;
  EXPECT_EQ(pieces, encodeSession(session));
  const std::string empty = encodeSession(session.config, "", {});
  EXPECT_TRUE(decodeSession(empty, nullptr).has_value()) << "a session without records opens";
}

TEST(SessionCodec, AForeignOrNewerDocumentIsRefusedByKind) {
  using Kind = SessionError::Kind;
  const std::string json = encodeSession(sampleSession());
  EXPECT_EQ(refused("").kind, Kind::Empty);
  EXPECT_EQ(refused("[1, 2]").kind, Kind::NotAnObject);
  EXPECT_EQ(refused(R"({"lessons": []})").kind, Kind::NoFormat);
  const SessionError wrong = refused(replaced(json, "ampscope-session", "ampscope-run"));
  EXPECT_EQ(wrong.kind, Kind::WrongFormat);
  EXPECT_EQ(wrong.found, "ampscope-run");
  const SessionError newer = refused(replaced(json, R"("version":1)", R"("version":3)"));
  EXPECT_EQ(newer.kind, Kind::NewerVersion);
  EXPECT_EQ(newer.text(),
            "written by a newer AmpScope (session format version 3; this AmpScope reads up to version 2). "
            "Update AmpScope to open it.");
  EXPECT_EQ(refused(replaced(json, R"("version":1)", R"("version":0.5)")).kind, Kind::BadVersion);
  const SessionError cut = refused(json.substr(0, json.size() / 2));
  EXPECT_EQ(cut.kind, Kind::Syntax);
  EXPECT_GT(cut.line, 1);
  EXPECT_NE(cut.text().find("cut short"), std::string::npos) << cut.text();
}

TEST(SessionCodec, ABadFieldIsNamedByItsFullPath) {
  const std::string json = encodeSession(sampleSession());
  // The third record's line; its first mode's loss becomes a word.
  const size_t line3 = json.find("\n{\"step\":3,");
  std::string text = json;
  const size_t loss = text.find("\"loss\":", line3);
  text.replace(loss, text.find(',', loss) - loss, "\"loss\":\"lots\"");
  EXPECT_EQ(refused(text).text(),
            "field \"records[2].modes[0].loss\": expected a number or \"nan\", \"inf\", \"-inf\"");
  EXPECT_EQ(refused(replaced(json, R"("found-inf":false,)", R"("found-inf":false,"extra":1,)")).text(),
            "field \"records[0].modes[0].extra\": unknown key");
  EXPECT_EQ(refused(replaced(json, R"("lesson":)", R"("colour":1,"lesson":)")).text(), "field \"colour\": unknown key");
  EXPECT_EQ(refused(replaced(json, R"("records":[)", R"("records":{)")).kind, SessionError::Kind::Syntax);
  const SessionError model = refused(replaced(json, R"("model":"deep-mlp")", R"("model":"huge-mlp")"));
  EXPECT_EQ(model.path, "config.model");
  EXPECT_NE(model.message.find("huge-mlp"), std::string::npos) << model.message;
  EXPECT_EQ(refused(replaced(json, R"("batch":48)", R"("batch":0)")).path, "config.batch");
}

TEST(SessionCodec, RecordsMustAgreeWithEachOtherAndTheConfig) {
  const std::string json = encodeSession(sampleSession());
  EXPECT_EQ(refused(replaced(json, "{\"step\":3,", "{\"step\":2,")).text(),
            "field \"records[2].step\": steps must increase (step 2 after 2)");
  // The second record's first mode says step 9.
  std::string text = json;
  const size_t record = text.find("\n{\"step\":2,");
  text.replace(text.find("\"step\":2,", text.find("\"mode\"", record)), 9, "\"step\":9,");
  EXPECT_EQ(refused(text).text(), "field \"records[1].modes[0].step\": step 9 in the record of step 2");
  // bf16-amp is not one of the session's modes (fp32, fp16-amp, fp16-pure).
  EXPECT_EQ(refused(replaced(json, R"({"mode":"fp16-pure","step":1,)", R"({"mode":"bf16-amp","step":1,)")).text(),
            "field \"records[0].modes[2].mode\": 'bf16-amp' is not in config.modes");
  EXPECT_EQ(refused(replaced(json, R"({"mode":"fp16-pure","step":1,)", R"({"mode":"fp32","step":1,)")).text(),
            "field \"records[0].modes[2].mode\": 'fp32' appears twice");
}

// The runner stops at config.steps and drops a mode only after the record where it diverged: a record past
// the run's end, or one with no mode at all, was not written by AmpScope (issue 15's damaged sessions).
TEST(SessionCodec, ARecordPastTheRunOrWithoutModesIsRefused) {
  Session session = sampleSession();  // steps 1..6 of a 321-step run
  session.config.steps = 5;
  EXPECT_EQ(refused(encodeSession(session)).text(), "field \"records[5].step\": step 6 is beyond config.steps (5)");
  session.config.steps = 6;
  EXPECT_TRUE(decodeSession(encodeSession(session), nullptr).has_value()) << "the last step itself is fine";
  session.records[2].modes.clear();
  EXPECT_EQ(refused(encodeSession(session)).text(), "field \"records[2].modes\": a record holds at least one mode");
}

// A session names its lesson as the lesson files do (lesson_id.h); a path or a megabyte is no name.
TEST(SessionCodec, ALessonThatCannotBeALessonIdIsRefused) {
  Session session = sampleSession();
  session.lesson = "../../../etc/passwd";
  EXPECT_EQ(refused(encodeSession(session)).text(),
            "field \"lesson\": a lesson id uses lower-case ASCII letters, digits and '-' only");
  session.lesson = std::string(1000000, 'a');
  EXPECT_EQ(refused(encodeSession(session)).text(),
            "field \"lesson\": a lesson id has at most 64 characters (got 1000000)");
  session.lesson = std::string(64, 'a');
  EXPECT_TRUE(decodeSession(encodeSession(session), nullptr).has_value());
  session.lesson.clear();  // no lesson
  EXPECT_TRUE(decodeSession(encodeSession(session), nullptr).has_value());
}

TEST(SessionCodec, RandomDamageNeverCrashesAndAlwaysExplains) {
  Session small = sampleSession();
  small.records.resize(3);
  const std::string json = encodeSession(small);
  std::mt19937 rng(5);
  for (int trial = 0; trial < 400; ++trial) {
    const std::string damaged = samples::damaged(json, trial, rng);
    SessionError error;
    if (!decodeSession(damaged, &error)) {
      EXPECT_FALSE(error.text().empty()) << "trial " << trial;
    }
  }
}

// ---- version 2: followed runs ----

FollowedRun followedRun(int64_t steps, const std::string& target) {
  FollowedRun run;
  run.source = samples::probeSource();
  run.target = target;
  run.steps = samples::probeSteps(steps);
  return run;
}

void expectSameFollowed(const FollowedRun& a, const FollowedRun& b) {
  EXPECT_EQ(a.source.source, b.source.source);
  EXPECT_EQ(a.source.run, b.source.run);
  EXPECT_EQ(a.source.runId, b.source.runId);
  EXPECT_EQ(a.source.rank, b.source.rank);
  EXPECT_EQ(a.source.worldSize, b.source.worldSize);
  EXPECT_EQ(a.source.ranks, b.source.ranks);
  EXPECT_EQ(a.source.device, b.source.device);
  EXPECT_EQ(a.source.torch, b.source.torch);
  EXPECT_EQ(a.source.every, b.source.every);
  EXPECT_EQ(a.source.parameters, b.source.parameters);
  EXPECT_EQ(a.target, b.target);
  ASSERT_EQ(a.steps.size(), b.steps.size());
  for (size_t i = 0; i < a.steps.size(); ++i) samples::expectSameStep(a.steps[i], b.steps[i]);
}

TEST(SessionCodecV2, AnEngineOnlySessionStaysVersion1) {
  const std::string json = encodeSession(sampleSession());
  EXPECT_NE(json.find(R"("version":1,)"), std::string::npos);
  EXPECT_EQ(json.find("followed"), std::string::npos);
}

TEST(SessionCodecV2, FollowedRunsAreWrittenAsVersion2AndReadBack) {
  Session session = sampleSession();
  session.followed = {followedRun(4, "run.rank1.jsonl"), followedRun(0, "[::1]:5001")};
  const std::string json = encodeSession(session);
  EXPECT_NE(json.find(R"({"format":"ampscope-session","version":2,)"), std::string::npos);
  EXPECT_NE(json.find("],\"followed\":[\n{\"source\":{\"source\":\"probe\",\"run\":"), std::string::npos) << json;
  // The pieces the autosave appends make the same bytes.
  std::string pieces = sessionHeaderJson(session.config, session.lesson, kSessionVersion);
  for (size_t i = 0; i < session.records.size(); ++i) appendSessionRecordJson(pieces, session.records[i], i);
  pieces += sessionFooterJson(session.followed);
  EXPECT_EQ(pieces, json);
  SessionError error;
  const auto decoded = decodeSession(json, &error);
  ASSERT_TRUE(decoded) << error.text();
  EXPECT_EQ(decoded->records.size(), session.records.size());
  ASSERT_EQ(decoded->followed.size(), 2u);
  expectSameFollowed(decoded->followed[0], session.followed[0]);
  expectSameFollowed(decoded->followed[1], session.followed[1]);
}

TEST(SessionCodecV2, ASessionOfFollowedRunsAloneNeedsNoConfig) {
  Session session;
  session.followed = {followedRun(3, "127.0.0.1:5000")};
  std::string json = encodeSession(session);
  // Without engine records the config may be left out.
  const size_t from = json.find(",\"config\":");
  const size_t to = json.find(",\"records\":");
  ASSERT_TRUE(from != std::string::npos && to != std::string::npos);
  json.erase(from, to - from);
  SessionError error;
  const auto decoded = decodeSession(json, &error);
  ASSERT_TRUE(decoded) << error.text();
  EXPECT_TRUE(decoded->records.empty());
  ASSERT_EQ(decoded->followed.size(), 1u);
  expectSameFollowed(decoded->followed[0], session.followed[0]);
  // With engine records it may not, and a version 1 session has no followed runs.
  Session both = sampleSession();
  both.followed = session.followed;
  std::string withRecords = encodeSession(both);
  withRecords.erase(withRecords.find(",\"config\":"),
                    withRecords.find(",\"records\":") - withRecords.find(",\"config\":"));
  EXPECT_EQ(refused(withRecords).text(), "field \"config\": missing");
  EXPECT_EQ(refused(replaced(encodeSession(both), R"("version":2)", R"("version":1)")).text(),
            "field \"followed\": unknown key (in a version 1 session)");
}

TEST(SessionCodecV2, AFollowedEngineStreamKeepsItsRunIdAndReadsBack) {
  // A followed `train --jsonl` stream: source "engine" with the run-id of its header, and the name it was
  // shown under. The probe's identity keys have no engine value and are not written (an "every" of 0
  // would be refused on reading: "must be at least 1").
  Session session;
  FollowedRun run;
  run.source.source = "engine";
  run.source.run = "train.jsonl";
  run.source.runId = "00000000000000cd";
  run.target = "train.jsonl";
  run.steps = samples::probeSteps(2);
  session.followed = {run};
  const std::string json = encodeSession(session);
  EXPECT_NE(json.find(R"({"source":{"source":"engine","run":"train.jsonl","run-id":"00000000000000cd"},"target")"),
            std::string::npos)
      << json;
  SessionError error;
  const auto decoded = decodeSession(json, &error);
  ASSERT_TRUE(decoded) << error.text();
  ASSERT_EQ(decoded->followed.size(), 1u);
  expectSameFollowed(decoded->followed[0], run);
  // As the writer before this spelled it (every identity key, "every":0): such a session still opens.
  const std::string before = replaced(json, R"("run-id":"00000000000000cd"})",
                                      R"("run-id":"00000000000000cd","rank":0,"world-size":1,"ranks":"single",)"
                                      R"("device":"","torch":"","every":0,"parameters":[]})");
  const auto old = decodeSession(before, &error);
  ASSERT_TRUE(old) << error.text();
  expectSameFollowed(old->followed[0], run);
}

TEST(SessionCodecV2, AFollowedRunJournalIsASessionOfThatRunWithoutItsFooter) {
  // session_codec.h: followedJournalHeaderJson + appendFollowedStepJson per step + the footer decodes as
  // a version 2 session holding that run alone; its run text is the one encodeSession writes.
  const FollowedRun run = followedRun(5, "127.0.0.1:5000");
  std::string journal = followedJournalHeaderJson(run.source, run.target);
  for (size_t i = 0; i < run.steps.size(); ++i) appendFollowedStepJson(journal, run.steps[i], i);
  EXPECT_EQ(journal.rfind(R"({"format":"ampscope-session","version":2,)", 0), 0u) << journal.substr(0, 80);
  Session one;
  one.followed = {run};
  const std::string whole = encodeSession(one);
  const std::string runText = whole.substr(whole.find("\n{\"source\""));
  EXPECT_EQ(journal.substr(journal.find("\n{\"source\"")) + std::string(kFollowedJournalFooterJson), runText);
  SessionError error;
  const auto decoded = decodeSession(journal + std::string(kFollowedJournalFooterJson), &error);
  ASSERT_TRUE(decoded) << error.text();
  EXPECT_TRUE(decoded->records.empty());
  ASSERT_EQ(decoded->followed.size(), 1u);
  expectSameFollowed(decoded->followed[0], run);
  // A run with no step yet.
  const auto empty = decodeSession(followedJournalHeaderJson(run.source, run.target) +
                                       std::string(kFollowedJournalFooterJson), &error);
  ASSERT_TRUE(empty) << error.text();
  ASSERT_EQ(empty->followed.size(), 1u);
  EXPECT_TRUE(empty->followed[0].steps.empty());
}

TEST(SessionCodecV2, DamagedFollowedRunsAreRefusedNamingTheField) {
  Session session = sampleSession();
  session.followed = {followedRun(3, "run.jsonl")};
  const std::string json = encodeSession(session);
  EXPECT_EQ(refused(replaced(json, R"("target":"run.jsonl")", R"("target":5)")).text(),
            "field \"followed[0].target\": expected a string");
  EXPECT_EQ(refused(replaced(json, R"("run-id":"5f0c2a9e1b7d4c3a")", R"("run-id":"xyz")")).text(),
            "field \"followed[0].source.run-id\": expected 16 lowercase hex digits");
  EXPECT_EQ(refused(replaced(json, R"("seq":2,)", R"("seq":-2,)")).text(),
            "field \"followed[0].steps[1].seq\": must be at least 1");
}

// Each record is decoded as the parser reaches it, and what needs the config is checked after the parse:
// the error reported is still the first in record order, whichever check finds it.
TEST(SessionCodecStreaming, TheFirstBadRecordInFileOrderIsReported) {
  const std::string json = encodeSession(sampleSession());
  // Record 1 (the second) out of order, record 2 (the third) with a loss that is a word.
  std::string text = replaced(json, "{\"step\":2,", "{\"step\":1,");
  const size_t line3 = text.find("\n{\"step\":3,");
  const size_t loss = text.find("\"loss\":", line3);
  text.replace(loss, text.find(',', loss) - loss, "\"loss\":\"lots\"");
  EXPECT_EQ(refused(text).text(), "field \"records[1].step\": steps must increase (step 1 after 1)");
  // The other way round: the word in record 1, the disorder in record 2.
  text = json;
  const size_t line2 = text.find("\n{\"step\":2,");
  const size_t loss2 = text.find("\"loss\":", line2);
  text.replace(loss2, text.find(',', loss2) - loss2, "\"loss\":\"lots\"");
  text = replaced(text, "{\"step\":3,", "{\"step\":1,");
  EXPECT_EQ(refused(text).text(),
            "field \"records[1].modes[0].loss\": expected a number or \"nan\", \"inf\", \"-inf\"");
}

TEST(SessionCodecStreaming, RecordsBeforeTheConfigAreStillCheckedAgainstIt) {
  const Session session = sampleSession();
  // The members in another order: JSON objects are unordered, the codec must not depend on it.
  std::string json = R"({"format":"ampscope-session","version":1,"records":[)";
  for (std::size_t i = 0; i < session.records.size(); ++i) appendSessionRecordJson(json, session.records[i], i);
  json += "],\"config\":" + configText(session.config) + "}";
  SessionError error;
  const auto decoded = decodeSession(json, &error);
  ASSERT_TRUE(decoded) << error.text();
  EXPECT_EQ(encodeSession(decoded->config, "", decoded->records),
            encodeSession(session.config, "", session.records));
  EXPECT_EQ(refused(replaced(json, R"({"mode":"fp16-pure","step":1,)", R"({"mode":"bf16-amp","step":1,)")).text(),
            "field \"records[0].modes[2].mode\": 'bf16-amp' is not in config.modes");
  // A syntax error after a record that does not decode is still a syntax error (the whole text is read).
  std::string bad = replaced(json, R"({"mode":"fp16-pure","step":1,)", R"({"mode":"fp16-pure","step":"one",)");
  EXPECT_EQ(refused(bad).kind, SessionError::Kind::Field);
  bad.pop_back();
  EXPECT_EQ(refused(bad).kind, SessionError::Kind::Syntax);
}

TEST(SessionCodecStreaming, ProgressCountsTheRecordsAndCanCancel) {
  const Session session = sampleSession();
  ASSERT_GE(session.records.size(), 3u);
  const std::string json = encodeSession(session);
  std::vector<std::size_t> counts;
  std::size_t lastBytes = 0;
  bool bytesGrow = true;
  SessionError error;
  ASSERT_TRUE(decodeSession(json, &error, [&](std::size_t bytes, std::size_t records) {
    bytesGrow = bytesGrow && bytes > lastBytes && bytes <= json.size();
    lastBytes = bytes;
    counts.push_back(records);
    return true;
  })) << error.text();
  EXPECT_TRUE(bytesGrow);
  ASSERT_EQ(counts.size(), session.records.size());
  for (std::size_t i = 0; i < counts.size(); ++i) EXPECT_EQ(counts[i], i + 1);
  // The line of the last record ends just before the footer.
  EXPECT_EQ(lastBytes, json.size() - kSessionFooterJson.size());

  int calls = 0;
  EXPECT_FALSE(decodeSession(json, &error, [&](std::size_t, std::size_t records) {
    ++calls;
    return records < 2;
  }));
  EXPECT_EQ(error.kind, SessionError::Kind::Cancelled);
  EXPECT_EQ(calls, 2) << "nothing is decoded after the answer to stop";
}

}  // namespace
}  // namespace ampscope
