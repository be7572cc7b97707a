package io.github.trtrace.tensorrt.log;

import io.github.trtrace.tensorrt.model.log.TrtLogEvent;
import io.github.trtrace.tensorrt.model.log.TrtLogKind;
import io.github.trtrace.tensorrt.model.log.TrtSeverity;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.github.trtrace.tensorrt.LogFixtures;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

class TrtLogPipelineTest {
  private static final String KLIB_ERROR = LogFixtures.messages(LogFixtures.PTX_AS_SM90).get(5);
  private static final String MEM_INFO = LogFixtures.messages(LogFixtures.MISSING_SM90).get(0);
  private static final String VERBOSE_LINE = LogFixtures.messages(LogFixtures.MISSING_SM90).get(1);

  private record Printed(Level level, String text) {}

  private final List<Printed> printed = Collections.synchronizedList(new ArrayList<>());
  private final AtomicReference<String> currentRequest = new AtomicReference<>();
  private final AtomicLong ticker = new AtomicLong();

  private TrtLogPipeline.Builder builder() {
    return TrtLogPipeline.builder()
        .output((level, text) -> printed.add(new Printed(level, text)))
        .requestIdSource(currentRequest::get)
        .nanoTime(ticker::get);
  }

  @Test
  void lineOnARequestThreadIsAttributedToTheRequest() {
    List<TrtLogEvent> events = new ArrayList<>();
    TrtLogPipeline p = builder().onEvent(events::add).build();
    currentRequest.set("req-42");
    p.log(1, KLIB_ERROR);
    assertThat(events).singleElement().satisfies(e -> {
      assertThat(e.requestId()).isEqualTo("req-42");
      assertThat(e.scope()).isNull();
      assertThat(e.kind()).isEqualTo(TrtLogKind.INTERNAL_ERROR);
      assertThat(e.errorCode()).isEqualTo(2);
      assertThat(e.errorCategory()).isEqualTo("Internal Error");
      assertThat(e.threadName()).isEqualTo(Thread.currentThread().getName());
      assertThat(e.epochMicros()).isPositive();
    });
    assertThat(printed).singleElement().satisfies(pr -> {
      assertThat(pr.level()).isEqualTo(Level.ERROR);
      assertThat(pr.text()).contains("request_id=req-42");
    });
  }

  @Test
  void withoutARequestTheInnermostScopeCapturesEverythingIncludingVerbose() {
    TrtLogPipeline p = builder().build();
    List<TrtLogEvent> outer = new ArrayList<>();
    List<TrtLogEvent> inner = new ArrayList<>();
    try (TrtLogPipeline.Capture o = p.openCapture("engine:abc", outer::add)) {
      try (TrtLogPipeline.Capture i = p.openCapture("build:llama-8b", inner::add)) {
        p.log(4, VERBOSE_LINE);
        p.log(3, MEM_INFO);
        p.log(1, KLIB_ERROR);
      }
      p.log(3, MEM_INFO);
    }
    p.log(3, MEM_INFO);
    assertThat(inner).extracting(TrtLogEvent::severity)
        .containsExactly(TrtSeverity.VERBOSE, TrtSeverity.INFO, TrtSeverity.ERROR);
    assertThat(inner).allSatisfy(e -> assertThat(e.scope()).isEqualTo("build:llama-8b"));
    assertThat(outer).singleElement().satisfies(e -> assertThat(e.scope()).isEqualTo("engine:abc"));
    assertThat(printed).as("only ERROR passes the default WARNING run-time level").hasSize(1);
  }

  @Test
  void requestAttributionWinsButTheOpenScopeIsStillRecorded() {
    List<TrtLogEvent> runtime = new ArrayList<>();
    TrtLogPipeline p = builder().onEvent(runtime::add).build();
    List<TrtLogEvent> captured = new ArrayList<>();
    try (TrtLogPipeline.Capture s = p.openCapture("engine:abc", captured::add)) {
      currentRequest.set("req-7");
      p.log(2, "some warning");
    }
    assertThat(runtime).singleElement().satisfies(e -> {
      assertThat(e.requestId()).isEqualTo("req-7");
      assertThat(e.scope()).isEqualTo("engine:abc");
    });
    assertThat(captured).hasSize(1);
  }

  @Test
  void closingAScopeTwiceIsHarmlessAndOutOfOrderCloseKeepsTheOtherScope() {
    TrtLogPipeline p = builder().build();
    List<TrtLogEvent> a = new ArrayList<>();
    List<TrtLogEvent> b = new ArrayList<>();
    TrtLogPipeline.Capture sa = p.openCapture("build:a", a::add);
    TrtLogPipeline.Capture sb = p.openCapture("build:b", b::add);
    sa.close();
    sa.close();
    p.log(3, MEM_INFO);
    sb.close();
    sb.close();
    p.log(3, MEM_INFO);
    assertThat(a).isEmpty();
    assertThat(b).hasSize(1);
  }

  @Test
  void concurrentBuildsOnTwoThreadsEachCaptureOnlyTheirOwnLines() throws Exception {
    TrtLogPipeline p = builder().build();
    List<TrtLogEvent> a = Collections.synchronizedList(new ArrayList<>());
    List<TrtLogEvent> b = Collections.synchronizedList(new ArrayList<>());
    CyclicBarrier bothOpen = new CyclicBarrier(2);
    CyclicBarrier bothLogged = new CyclicBarrier(2);
    Thread ta = new Thread(() -> build(p, "build:a", a, "line from a", bothOpen, bothLogged));
    Thread tb = new Thread(() -> build(p, "build:b", b, "line from b", bothOpen, bothLogged));
    ta.start();
    tb.start();
    ta.join(10_000);
    tb.join(10_000);
    assertThat(a).extracting(TrtLogEvent::message).containsExactly("line from a");
    assertThat(a).extracting(TrtLogEvent::scope).containsOnly("build:a");
    assertThat(b).extracting(TrtLogEvent::message).containsExactly("line from b");
    assertThat(b).extracting(TrtLogEvent::scope).containsOnly("build:b");
    assertThat(p.stats().unscopedWhileScopesOpen()).isZero();
  }

  private static void build(
      TrtLogPipeline p, String name, List<TrtLogEvent> capture, String line, CyclicBarrier open, CyclicBarrier logged) {
    try (TrtLogPipeline.Capture s = p.openCapture(name, capture::add)) {
      open.await(10, TimeUnit.SECONDS);
      p.log(3, line);
      logged.await(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void aServingWarningFromAnotherThreadNeverLandsInTheOnlyOpenBuild() throws Exception {
    List<TrtLogEvent> audit = new ArrayList<>();
    List<TrtLogEvent> runtime = new ArrayList<>();
    TrtLogPipeline p = builder().buildAudit(audit::add).onEvent(runtime::add).build();
    List<TrtLogEvent> build = new ArrayList<>();
    try (TrtLogPipeline.Capture s = p.openCapture("build:main", build::add)) {
      onWorker(() -> {
        currentRequest.set("req-serving-1");
        p.log(2, "serving warning on a request thread");
        currentRequest.set(null);
      });
      p.log(3, MEM_INFO);
    }
    assertThat(build).extracting(TrtLogEvent::message).containsExactly(MEM_INFO);
    assertThat(audit).extracting(TrtLogEvent::message).containsExactly(MEM_INFO);
    assertThat(runtime).singleElement().satisfies(e -> {
      assertThat(e.message()).isEqualTo("serving warning on a request thread");
      assertThat(e.scope()).isNull();
      assertThat(e.requestId()).isEqualTo("req-serving-1");
    });
    assertThat(p.stats().unscopedWhileScopesOpen()).isEqualTo(1);
  }

  @Test
  void aLineBelowTheLevelThatNoScopeCapturesIsCountedButNeverRedacted() {
    List<TrtLogEvent> audit = new ArrayList<>();
    TrtLogPipeline p = builder().redact(Pattern.compile("CPU \\d+"), "CPU n").buildAudit(audit::add).build();
    p.log(3, MEM_INFO); // INFO is below the default WARNING level and no scope is open
    assertThat(p.stats().redacted()).isZero();
    assertThat(p.stats().eventsBySeverity()).containsEntry(TrtSeverity.INFO, 1L);
    assertThat(printed).isEmpty();
    try (TrtLogPipeline.Capture s = p.openCapture("build:x", e -> { })) {
      p.log(3, MEM_INFO); // captured by the scope: now it is redacted
    }
    assertThat(p.stats().redacted()).isEqualTo(1);
    assertThat(audit).singleElement().satisfies(e -> assertThat(e.message()).contains("CPU n"));
  }

  @Test
  void aDisabledSlf4jLevelWithoutListenersTakesTheCheapPath() {
    List<Printed> shown = new ArrayList<>();
    TrtLogPipeline p = TrtLogPipeline.builder()
        .output(new TrtLogPipeline.Output() {
          @Override
          public void emit(Level level, String text) {
            shown.add(new Printed(level, text));
          }

          @Override
          public boolean isEnabled(Level level) {
            return level == Level.ERROR;
          }
        })
        .redact(Pattern.compile("shared library"), "lib")
        .requestIdSource(() -> { throw new IllegalStateException("must not be asked on the cheap path"); })
        .build();
    p.log(2, "Trying to load shared library x"); // WARNING passes the level but SLF4J's WARN is off
    assertThat(p.stats().redacted()).isZero();
    assertThat(p.stats().internalFailures()).isZero();
    assertThat(shown).isEmpty();
    p.log(1, "Unable to load shared library y");
    assertThat(shown).singleElement().satisfies(pr -> assertThat(pr.text()).contains("Unable to load lib y"));
  }

  private static void onWorker(Runnable r) throws InterruptedException {
    Thread t = new Thread(r, "trt-worker");
    t.start();
    t.join(10_000);
  }

  @Test
  void aRemovedListenerReceivesNothingMore() {
    TrtLogPipeline p = builder().build();
    List<TrtLogEvent> seen = new ArrayList<>();
    java.util.function.Consumer<TrtLogEvent> listener = seen::add;
    p.onEvent(listener);
    p.log(2, "first warning");
    assertThat(p.removeListener(listener)).isTrue();
    assertThat(p.removeListener(listener)).isFalse();
    p.log(2, "second warning");
    assertThat(seen).extracting(TrtLogEvent::message).containsExactly("first warning");
  }

  @Test
  void buildAuditSeesScopedLinesOnly() {
    List<TrtLogEvent> audit = new ArrayList<>();
    TrtLogPipeline p = builder().buildAudit(audit::add).build();
    p.log(2, "outside any scope");
    try (TrtLogPipeline.Capture s = p.openCapture("build:x", e -> { })) {
      p.log(4, VERBOSE_LINE);
    }
    assertThat(audit).extracting(TrtLogEvent::message).containsExactly(VERBOSE_LINE);
  }

  @Test
  void verboseRunTimeLevelWarnsExactlyOnce() {
    TrtLogPipeline p = builder().runtimeLevel(TrtSeverity.VERBOSE).build();
    p.runtimeLevel(TrtSeverity.WARNING);
    p.runtimeLevel(TrtSeverity.VERBOSE);
    assertThat(printed).filteredOn(pr -> pr.text().equals(TrtLogPipeline.VERBOSE_WARNING))
        .singleElement().satisfies(pr -> assertThat(pr.level()).isEqualTo(Level.WARN));
    assertThat(printed.get(0).text()).contains("40 %");
    p.log(4, VERBOSE_LINE);
    assertThat(printed).last().satisfies(pr -> assertThat(pr.level()).isEqualTo(Level.DEBUG));
  }

  @Test
  void defaultLevelDropsInfoAndVerboseFromOutputAndListeners() {
    List<TrtLogEvent> runtime = new ArrayList<>();
    TrtLogPipeline p = builder().onEvent(runtime::add).build();
    p.log(3, MEM_INFO);
    p.log(4, VERBOSE_LINE);
    assertThat(runtime).isEmpty();
    assertThat(printed).isEmpty();
    assertThat(p.stats().eventsBySeverity()).containsEntry(TrtSeverity.INFO, 1L).containsEntry(TrtSeverity.VERBOSE, 1L);
  }

  @Test
  void shapesAreRedactedBeforeAnyoneSeesTheMessage() {
    // Real line from https://github.com/NVIDIA/TensorRT/issues/2739 (see public-issue-lines.txt).
    String line = "Error Code 3: API Usage Error (Parameter check failed at: ... Supplied binding dimension"
        + " [10,3,128,64] for bindings[0] exceed min ~ max range at index 0)";
    List<TrtLogEvent> runtime = new ArrayList<>();
    List<TrtLogEvent> scoped = new ArrayList<>();
    TrtLogPipeline p = builder()
        .redact(Pattern.compile("\\[\\d+(,\\d+)*\\]"), "[shape]")
        .onEvent(runtime::add)
        .build();
    try (TrtLogPipeline.Capture s = p.openCapture("build:x", scoped::add)) {
      p.log(1, line);
    }
    assertThat(runtime).singleElement().satisfies(e -> {
      assertThat(e.message()).contains("dimension [shape] for bindings[shape]").doesNotContain("128");
      assertThat(e.kind()).isEqualTo(TrtLogKind.API_USAGE_ERROR);
      assertThat(e.errorCode()).isEqualTo(3);
    });
    assertThat(scoped.get(0).message()).doesNotContain("128");
    assertThat(printed.get(0).text()).doesNotContain("128");
    assertThat(p.stats().redacted()).isEqualTo(1);
  }

  @Test
  void identicalLinesAreRateLimitedPerSecondAndTheSuppressedCountIsReported() {
    List<TrtLogEvent> runtime = new ArrayList<>();
    TrtLogPipeline p = builder().maxIdenticalPerSecond(3).onEvent(runtime::add).build();
    for (int i = 0; i < 10; i++) {
      p.log(2, "same warning");
    }
    p.log(2, "another warning");
    assertThat(runtime).hasSize(4);
    assertThat(p.stats().suppressed()).isEqualTo(7);
    ticker.addAndGet(1_000_000_000L);
    p.log(2, "same warning");
    assertThat(printed).last().satisfies(pr -> assertThat(pr.text()).contains("(7 identical lines suppressed)"));
    assertThat(runtime).hasSize(5);
  }

  @Test
  void rateLimitDoesNotTouchScopeCapture() {
    List<TrtLogEvent> scoped = new ArrayList<>();
    TrtLogPipeline p = builder().maxIdenticalPerSecond(1).build();
    try (TrtLogPipeline.Capture s = p.openCapture("build:x", scoped::add)) {
      for (int i = 0; i < 5; i++) {
        p.log(2, "same warning");
      }
    }
    assertThat(scoped).hasSize(5);
    assertThat(printed).hasSize(1);
  }

  @Test
  void throwingListenersCaptureAndRequestSourceNeverReachTensorRt() {
    TrtLogPipeline p = builder()
        .onEvent(e -> { throw new IllegalStateException("listener bug"); })
        .buildAudit(e -> { throw new IllegalStateException("audit bug"); })
        .requestIdSource(() -> { throw new IllegalStateException("context bug"); })
        .build();
    List<TrtLogEvent> second = new ArrayList<>();
    p.onEvent(second::add);
    TrtLogPipeline.Capture s = p.openCapture("build:x", e -> { throw new IllegalStateException("capture bug"); });
    assertThatCode(() -> p.log(1, KLIB_ERROR)).doesNotThrowAnyException();
    assertThatCode(() -> p.log(1, null)).doesNotThrowAnyException();
    s.close();
    assertThat(second).hasSize(2);
    TrtLogPipeline.Stats stats = p.stats();
    assertThat(stats.listenerFailures()).isEqualTo(6);
    assertThat(stats.internalFailures()).isEqualTo(2);
    assertThat(stats.events()).isEqualTo(2);
  }

  @Test
  void aBrokenOutputIsCountedNotThrown() {
    TrtLogPipeline p = TrtLogPipeline.builder()
        .output((l, t) -> { throw new IllegalStateException("backend down"); })
        .requestIdSource(() -> null)
        .build();
    assertThatCode(() -> p.log(1, KLIB_ERROR)).doesNotThrowAnyException();
    assertThat(p.stats().listenerFailures()).isEqualTo(1);
  }

  @Test
  void defaultRequestSourceIsTheRequestContext() {
    List<TrtLogEvent> runtime = new ArrayList<>();
    TrtLogPipeline p = TrtLogPipeline.builder().output((l, t) -> { }).onEvent(runtime::add).build();
    p.log(1, KLIB_ERROR);
    assertThat(runtime).singleElement().satisfies(e -> assertThat(e.requestId()).isNull());
  }

  @Test
  void badConfigurationIsRejectedWithAClearMessage() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> TrtLogPipeline.builder().maxIdenticalPerSecond(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxIdenticalPerSecond");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> TrtLogPipeline.builder().redact(null, "x"))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("pattern");
  }
}
