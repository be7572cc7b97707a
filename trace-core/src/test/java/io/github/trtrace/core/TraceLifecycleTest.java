package io.github.trtrace.core;

import io.github.trtrace.core.internal.trace.TracerFactory;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.core.context.RequestIds;
import io.github.trtrace.core.sink.CapturingSink;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/** The callback form, making a trace current, and the request ID a record carries. */
class TraceLifecycleTest {
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final Clock wall = Clock.fixed(Instant.parse("2026-11-30T08:00:00.123456Z"), ZoneOffset.UTC);
  private CapturingSink sink;
  private InferenceTracer tracer;

  @BeforeEach
  void setUp() {
    MDC.clear();
    sink = CapturingSink.create();
    tracer = new TracerFactory().sink(sink).clocks(wall, nanos::get).build();
  }

  @AfterEach
  void tearDown() {
    tracer.close();
    assertThat(RequestContext.current().isEmpty()).as("nothing left current").isTrue();
    assertThat(MDC.get("request_id")).isNull();
  }

  private InferenceRecord onlyRecord() {
    tracer.flush().join();
    assertThat(sink.records()).hasSize(1);
    return sink.records().get(0);
  }

  @Test
  void callReturnsTheBodysResultAndRecordsSuccess() {
    String answer = tracer.call("m", t -> {
      nanos.addAndGet(3_000_000);
      return "hello";
    });
    assertThat(answer).isEqualTo("hello");
    InferenceRecord r = onlyRecord();
    assertThat(r.status()).isEqualTo(Status.SUCCESS);
    assertThat(r.latencyMs()).isEqualTo(3.0);
  }

  @Test
  void callRecordsAThrownExceptionAndRethrowsTheSameInstance() {
    IllegalStateException boom = new IllegalStateException("boom");
    assertThatThrownBy(() -> tracer.call("m", t -> {
      throw boom;
    })).isSameAs(boom);
    InferenceRecord r = onlyRecord();
    assertThat(r.status()).isEqualTo(Status.ERROR);
    assertThat(r.errorType()).isEqualTo(IllegalStateException.class.getName());
    assertThat(r.sampledReason()).isEqualTo("error");
  }

  @Test
  void runPropagatesACheckedExceptionTypedAndKeepsAnExplicitTimeout() {
    IOException timeout = new IOException("deadline");
    try {
      tracer.run("m", t -> {
        t.status(Status.TIMEOUT);
        throw timeout;
      });
    } catch (IOException e) { // the compiler knows run throws IOException here
      assertThat(e).isSameAs(timeout);
    }
    InferenceRecord r = onlyRecord();
    assertThat(r.status()).isEqualTo(Status.TIMEOUT);
    assertThat(r.errorType()).isEqualTo(IOException.class.getName());
  }

  @Test
  void anErrorIsRecordedToo() {
    StackOverflowError deep = new StackOverflowError();
    assertThatThrownBy(() -> tracer.run("m", t -> {
      throw deep;
    })).isSameAs(deep);
    assertThat(onlyRecord().errorType()).isEqualTo(StackOverflowError.class.getName());
  }

  @Test
  void withoutAContextTheGeneratedIdIsCurrentInsideCallAndGoneAfter() {
    AtomicReference<String> mdc = new AtomicReference<>();
    AtomicReference<String> ctx = new AtomicReference<>();
    String id = tracer.call("llama", t -> {
      mdc.set(MDC.get("request_id"));
      ctx.set(RequestContext.current().requestId());
      assertThat(MDC.get("model_name")).isEqualTo("llama");
      return t.requestId();
    });
    assertThat(id).startsWith(RequestIds.PREFIX_REQUEST);
    assertThat(mdc.get()).isEqualTo(id);
    assertThat(ctx.get()).isEqualTo(id);
    assertThat(onlyRecord().requestId()).isEqualTo(id);
  }

  @Test
  void callWithTheCallersHeaderUsesAValidIdAndReplacesAnInvalidOne() {
    String kept = tracer.call("m", "api-caller-1", t -> MDC.get("request_id"));
    assertThat(kept).isEqualTo("api-caller-1");
    String replaced = tracer.call("m", "bad id\r\n", t -> {
      assertThat(MDC.get("request_id")).isEqualTo(t.requestId());
      return t.requestId();
    });
    assertThat(replaced).startsWith(RequestIds.PREFIX_REQUEST);
    String generated = tracer.call("m", null, InferenceTrace::requestId);
    assertThat(generated).startsWith(RequestIds.PREFIX_REQUEST);
    tracer.flush().join();
    assertThat(sink.records()).extracting(InferenceRecord::requestId).containsExactly(kept, replaced, generated);
    assertThat(sink.records().get(1).attributes()).containsKey(RequestIds.REJECTED_ATTRIBUTE);
    assertThat(sink.records().get(0).attributes()).isEmpty();
  }

  @Test
  void insideAContextCallKeepsItsIdAndAttributes() {
    RequestContext.with("api-7").attribute("tenant", "acme").run(() -> tracer.run("m", t -> {
      assertThat(t.requestId()).isEqualTo("api-7");
      assertThat(RequestContext.current().attributes()).containsEntry("tenant", "acme");
      assertThat(MDC.get("request_id")).isEqualTo("api-7");
    }));
    assertThat(onlyRecord().attributes()).containsEntry("tenant", "acme");
  }

  @Test
  void makeCurrentOnAWorkerThreadCarriesTheIdThereAndRestoresTheWorker() throws Exception {
    ExecutorService worker = Executors.newSingleThreadExecutor();
    try {
      InferenceTrace t = tracer.start("m");
      List<String> seen = new ArrayList<>();
      worker.submit(() -> {
        try (TraceScope scope = t.makeCurrent()) {
          seen.add(MDC.get("request_id"));
          seen.add(RequestContext.current().requestId());
        }
        seen.add(MDC.get("request_id"));
        seen.add(String.valueOf(RequestContext.current().isEmpty()));
        t.close();
      }).get(10, TimeUnit.SECONDS);
      assertThat(seen).containsExactly(t.requestId(), t.requestId(), null, "true");
    } finally {
      worker.shutdownNow();
    }
  }

  @Test
  void closingTheScopeOfMakeCurrentTwiceRestoresOnce() {
    try (RequestContext.Scope outer = RequestContext.with("api-outer").open()) {
      InferenceTrace t = tracer.start("m", "api-inner");
      TraceScope s = t.makeCurrent();
      assertThat(MDC.get("request_id")).isEqualTo("api-inner");
      s.close();
      s.close();
      assertThat(MDC.get("request_id")).isEqualTo("api-outer");
      t.close();
    }
  }

  @Test
  void anExplicitValidIdInsideARejectedHeadersContextDoesNotCarryTheRejectedValue() {
    RequestIds.accept("bad id\r\n").toContext().build().run(() -> {
      assertThat(RequestContext.current().attributes()).containsKey(RequestIds.REJECTED_ATTRIBUTE);
      try (InferenceTrace t = tracer.start("m", "good-id")) {
        assertThat(t.requestId()).isEqualTo("good-id");
      }
      try (InferenceTrace t = tracer.start("m")) {
        assertThat(t.requestId()).isEqualTo(RequestContext.current().requestId());
      }
    });
    tracer.flush().join();
    List<InferenceRecord> records = sink.records();
    assertThat(records).hasSize(2);
    assertThat(records.get(0).attributes()).doesNotContainKey(RequestIds.REJECTED_ATTRIBUTE);
    assertThat(records.get(1).attributes())
        .as("the request whose ID replaced the rejected one keeps it")
        .containsKey(RequestIds.REJECTED_ATTRIBUTE);
  }

  @Test
  void anExplicitInvalidIdInsideARejectedHeadersContextCarriesItsOwnRejectedValue() {
    RequestIds.accept("first bad").toContext().build().run(() -> {
      try (InferenceTrace t = tracer.start("m", "second bad")) {
        assertThat(t.requestId()).startsWith("req-");
      }
    });
    assertThat(onlyRecord().attributes().get(RequestIds.REJECTED_ATTRIBUTE)).startsWith("second");
  }

  @Test
  void theNoopTracerRunsTheBodyAndRethrows() {
    InferenceTracer noop = InferenceTracer.noop();
    int answer = noop.call("m", t -> t.callStage(Stage.DECODE, () -> 42));
    assertThat(answer).isEqualTo(42);
    IllegalStateException boom = new IllegalStateException();
    assertThatThrownBy(() -> noop.run("m", t -> {
      throw boom;
    })).isSameAs(boom);
  }
}
