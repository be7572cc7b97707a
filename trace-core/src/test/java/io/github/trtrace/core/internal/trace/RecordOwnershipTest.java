package io.github.trtrace.core.internal.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InputFlag;
import io.github.trtrace.core.OutputFlag;
import io.github.trtrace.core.Stage;
import io.github.trtrace.core.Status;
import java.util.EnumSet;
import java.util.Set;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The worker builds a record from a pooled entry and gives the entry back to the pool at once; the entry is
 * then filled again for another request. The record handed out must not share anything mutable with the
 * entry: a later reuse (or reset) of the entry cannot change a record already built from it.
 */
class RecordOwnershipTest {
  private static final ListenerEnds.Failures NO_FAILURES = (listener, callback, requestId, e) -> {};

  @Test
  void aRecordKeepsItsValuesWhenItsPooledEntryIsFilledAgain() {
    RecordEntry.Pool pool = new RecordEntry.Pool(4, NO_FAILURES);
    RecordEntry first = pool.take();
    fill(first, "req-1", 3);
    first.attribute("tenant", "acme-replaced"); // replaces in place: keeps its first position
    first.addEvent(new InferenceRecord.Event("tensorrt.warning", "warning", "first", 1.5));
    first.addLayer(new InferenceRecord.LayerTime("conv1", 0.25, 2));
    InferenceRecord built = first.toRecord(); // the worker's call: builds, then gives the entry back

    RecordEntry again = pool.take();
    assertThat(again).as("the pool hands the same entry out again").isSameAs(first);
    fill(again, "req-2", 0);
    again.attribute("tenant", "other");
    again.attribute("zone", "eu");
    again.attribute("attr.0", "overwritten");
    again.addEvent(new InferenceRecord.Event("tensorrt.error", "error", "second", 2.5));
    again.addLayer(new InferenceRecord.LayerTime("conv2", 0.5, 1));
    InferenceRecord second = again.toRecord();

    assertThat(built.requestId()).isEqualTo("req-1");
    assertThat(built.attributes()).containsExactly(
        entry("tenant", "acme-replaced"), entry("route", "/v1/chat"),
        entry("attr.0", "v0"), entry("attr.1", "v1"), entry("attr.2", "v2"));
    assertThat(built.events()).extracting(InferenceRecord.Event::message).containsExactly("first");
    assertThat(built.layers()).extracting(InferenceRecord.LayerTime::name).containsExactly("conv1");
    assertThat(second.attributes()).containsExactly(
        entry("tenant", "other"), entry("route", "/v1/chat"), entry("zone", "eu"), entry("attr.0", "overwritten"));
    assertThat(second.events()).extracting(InferenceRecord.Event::message).containsExactly("second");
  }

  @Test
  void aRecordKeepsItsValuesWhenItsEntryIsReset() {
    RecordEntry.Pool pool = new RecordEntry.Pool(4, NO_FAILURES);
    for (int attributes : new int[] {0, 1, 16, 17, 40}) {
      RecordEntry e = pool.take();
      fill(e, "req-" + attributes, attributes);
      e.addEvent(new InferenceRecord.Event("k", "info", "m", 0));
      InferenceRecord built = e.build(); // the caller's path (listeners, sampled out): the entry stays
      Map<String, String> expected = new LinkedHashMap<>(built.attributes());
      e.reset();
      fill(e, "other", 2);
      e.attribute("tenant", "changed");
      assertThat(built.attributes()).as("%d attributes", attributes).containsExactlyEntriesOf(expected);
      assertThat(built.attributes()).hasSize(attributes + 2);
      assertThat(built.attributes().get("tenant")).isEqualTo("acme");
      assertThat(built.events()).hasSize(1);
      e.discard();
    }
  }

  /**
   * The worker's record is read straight from the entry (issue 22, no builder in between): it must be the record
   * a builder given the same values builds, field by field, and the flag sets it keeps must be its own copies.
   */
  @Test
  void anEntryBuildsTheRecordABuilderWithTheSameValuesBuilds() {
    RecordEntry.Pool pool = new RecordEntry.Pool(4, NO_FAILURES);
    RecordEntry e = pool.take();
    e.requestId = "req-all";
    e.modelName = "llama-8b";
    e.timestampEpochNanos = 1_780_000_000_123_456_789L;
    e.status = Status.ERROR;
    e.errorType = "OutOfMemory";
    e.latencyMs = 41.7;
    e.traceId = "0af7651916cd43dd8448eb211c80319c";
    e.spanId = "b7ad6b7169203331";
    e.inputTokens = 12;
    e.outputTokens = 80;
    e.maxTokens = 256;
    e.temperature = 0.7;
    e.topP = 0.9;
    e.finishReason = "length";
    double[] stages = {1.25, 2.5, 30.125, 4.0625, 5.5};
    System.arraycopy(stages, 0, e.stageMs, 0, stages.length);
    e.gpuMs = 28.5;
    e.ttftMs = 9.25;
    e.tpotMs = 0.375;
    e.gpuUtil = 0.81;
    e.gpuUtilMean = 0.72;
    e.gpuUtilMax = 0.99;
    e.gpuMemUtilMean = 0.41;
    e.gpuMemUtilMax = 0.52;
    e.gpuMemUsedMb = 40_960;
    e.engineFingerprint = "sha256:abc";
    e.sampledReason = "error";
    Set<InputFlag> inputFlags = EnumSet.of(InputFlag.BIDI_CONTROL, InputFlag.VERY_LONG);
    Set<OutputFlag> outputFlags = EnumSet.of(OutputFlag.values()[0]);
    e.inputFlags = inputFlags;
    e.inputDigest = "hello [REDACTED]";
    e.outputFlags = outputFlags;
    e.attribute("tenant", "acme");
    e.attribute("route", "/v1/chat");
    e.addEvent(new InferenceRecord.Event("tensorrt.warning", "warning", "w", 1.5));
    e.addLayer(new InferenceRecord.LayerTime("conv1", 0.25, 2));

    InferenceRecord.Builder b = InferenceRecord.builder("req-all", "llama-8b")
        .timestamp(RecordEntry.instant(e.timestampEpochNanos)).status(Status.ERROR).errorType("OutOfMemory")
        .latencyMs(41.7).traceId(e.traceId).spanId(e.spanId).inputTokens(12).outputTokens(80).maxTokens(256)
        .temperature(0.7).topP(0.9).finishReason("length").gpuMs(28.5).ttftMs(9.25).tpotMs(0.375)
        .gpuUtil(0.81).gpuUtilMean(0.72).gpuUtilMax(0.99).gpuMemUtilMean(0.41).gpuMemUtilMax(0.52)
        .gpuMemUsedMb(40_960).engineFingerprint("sha256:abc").sampledReason("error").inputFlags(inputFlags)
        .inputDigest("hello [REDACTED]").outputFlags(outputFlags).attribute("tenant", "acme")
        .attribute("route", "/v1/chat").addEvent(new InferenceRecord.Event("tensorrt.warning", "warning", "w", 1.5))
        .addLayer(new InferenceRecord.LayerTime("conv1", 0.25, 2));
    Stage[] order = Stage.values();
    for (int i = 0; i < order.length; i++) {
      b.stageMs(order[i], stages[i]);
    }
    InferenceRecord expected = b.build();

    InferenceRecord built = e.toRecord(); // the worker's call: builds, then resets the entry and gives it back
    inputFlags.clear(); // the entry's sets are not the record's
    outputFlags.clear();

    assertThat(TracerFactory.toJson(built)).isEqualTo(TracerFactory.toJson(expected));
    assertThat(built.toString()).isEqualTo(expected.toString());
    assertThat(built.timestamp()).isEqualTo(expected.timestamp());
    assertThat(built.inputFlags()).containsExactlyInAnyOrder(InputFlag.BIDI_CONTROL, InputFlag.VERY_LONG);
    assertThat(built.outputFlags()).hasSize(1);
    for (Stage s : order) {
      assertThat(built.stageMs(s)).as("%s", s).isEqualTo(expected.stageMs(s));
    }
  }

  /** Two attributes (tenant, route) and then {@code extra} more, in that order. */
  static void fill(RecordEntry e, String requestId, int extra) {
    e.requestId = requestId;
    e.modelName = "llama-8b";
    e.timestampEpochNanos = 1_780_000_000_123_456_000L;
    e.status = Status.SUCCESS;
    e.latencyMs = 41.7;
    e.inputTokens = 12;
    e.attribute("tenant", "acme");
    e.attribute("route", "/v1/chat");
    for (int i = 0; i < extra; i++) {
      e.attribute("attr." + i, "v" + i);
    }
  }
}
