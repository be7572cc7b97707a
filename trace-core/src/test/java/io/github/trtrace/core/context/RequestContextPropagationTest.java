package io.github.trtrace.core.context;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.slf4j.MDC;

class RequestContextPropagationTest {
  private ExecutorService pool;

  @BeforeEach
  void singleThreadPool() {
    pool = Executors.newSingleThreadExecutor();
  }

  @AfterEach
  void shutdown() throws InterruptedException {
    pool.shutdownNow();
    assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    MDC.clear();
  }

  /** What the pool thread sees once the previous task is done: must be no request at all. */
  private Seen seenInPoolNow() throws Exception {
    return pool.submit(Seen::now).get(10, TimeUnit.SECONDS);
  }

  @Test
  void wrappedExecutorRunsTaskUnderSubmitterContextAndClearsItAfter() throws Exception {
    CompletableFuture<Seen> seen = new CompletableFuture<>();
    var executor = RequestContext.wrap((java.util.concurrent.Executor) pool);
    RequestContext.with("req-exec").model("m").run(() -> executor.execute(() -> seen.complete(Seen.now())));
    assertThat(seen.get(10, TimeUnit.SECONDS)).isEqualTo(new Seen("req-exec", "req-exec", "m"));
    assertThat(seenInPoolNow()).isEqualTo(Seen.NONE);
  }

  @Test
  void wrappedExecutorServiceSubmitCarriesContextForCallableAndRunnable() throws Exception {
    ExecutorService wrapped = RequestContext.wrap(pool);
    Future<Seen> fromCallable;
    CompletableFuture<Seen> fromRunnable = new CompletableFuture<>();
    Future<String> withResult;
    try (RequestContext.Scope s = RequestContext.with("req-submit").open()) {
      fromCallable = wrapped.submit(Seen::now);
      wrapped.submit(() -> {
        fromRunnable.complete(Seen.now());
      });
      withResult = wrapped.submit(() -> {}, "done");
    }
    assertThat(fromCallable.get(10, TimeUnit.SECONDS).requestId()).isEqualTo("req-submit");
    assertThat(fromRunnable.get(10, TimeUnit.SECONDS).mdcRequestId()).isEqualTo("req-submit");
    assertThat(withResult.get(10, TimeUnit.SECONDS)).isEqualTo("done");
    assertThat(seenInPoolNow()).isEqualTo(Seen.NONE);
  }

  @Test
  void wrappedExecutorServiceExecuteCarriesContext() throws Exception {
    ExecutorService wrapped = RequestContext.wrap(pool);
    CompletableFuture<Seen> seen = new CompletableFuture<>();
    RequestContext.with("req-execute").run(() -> wrapped.execute(() -> seen.complete(Seen.now())));
    assertThat(seen.get(10, TimeUnit.SECONDS).requestId()).isEqualTo("req-execute");
    assertThat(seenInPoolNow()).isEqualTo(Seen.NONE);
  }

  @Test
  void invokeAllAndInvokeAnyRunEveryTaskUnderSubmitterContext() throws Exception {
    ExecutorService wrapped = RequestContext.wrap(Executors.newFixedThreadPool(3));
    try {
      List<Callable<Seen>> tasks = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        tasks.add(Seen::now);
      }
      List<Future<Seen>> results = RequestContext.with("req-all").call(() -> wrapped.invokeAll(tasks));
      for (Future<Seen> f : results) {
        assertThat(f.get()).isEqualTo(new Seen("req-all", "req-all", null));
      }
      Seen any = RequestContext.with("req-any").call(() -> wrapped.invokeAny(tasks));
      assertThat(any.requestId()).isEqualTo("req-any");
      List<Future<Seen>> timed =
          RequestContext.with("req-timed").call(() -> wrapped.invokeAll(tasks, 10, TimeUnit.SECONDS));
      assertThat(timed.get(0).get().requestId()).isEqualTo("req-timed");
    } finally {
      wrapped.shutdownNow();
      assertThat(wrapped.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      assertThat(wrapped.isShutdown()).isTrue();
    }
  }

  @Test
  void completableFutureStagesOnWrappedExecutorKeepContext() throws Exception {
    ExecutorService wrapped = RequestContext.wrap(pool);
    CompletableFuture<String> chain =
        RequestContext.with("req-cf").call(() -> CompletableFuture.supplyAsync(() -> currentId(), wrapped)
            .thenApplyAsync(first -> first + "," + currentId(), wrapped));
    assertThat(chain.get(10, TimeUnit.SECONDS)).isEqualTo("req-cf,req-cf");
    assertThat(seenInPoolNow()).isEqualTo(Seen.NONE);
  }

  @Test
  void contextIsCapturedAtSubmitTimeNotAtRunTime() throws Exception {
    CompletableFuture<Void> gate = new CompletableFuture<>();
    pool.submit(() -> gate.join());
    ExecutorService wrapped = RequestContext.wrap(pool);
    Future<String> first = RequestContext.with("req-first").call(() -> wrapped.submit(() -> currentId()));
    Future<String> second = RequestContext.with("req-second").call(() -> wrapped.submit(() -> currentId()));
    gate.complete(null);
    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("req-first");
    assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo("req-second");
  }

  @Test
  void wrappedTaskFromEmptyContextDoesNotSeeThePoolThreadsOwnContext() throws Exception {
    Runnable wrappedWithEmpty =
        RequestContext.wrap((Runnable) () -> assertThat(RequestContext.current().isEmpty()).isTrue());
    Callable<String> callWithEmpty = RequestContext.wrap(() -> String.valueOf(currentId()));
    String seen = RequestContext.with("req-pool-own").call(() -> {
      wrappedWithEmpty.run();
      return callWithEmpty.call() + "|" + currentId();
    });
    assertThat(seen).isEqualTo("null|req-pool-own");
  }

  @Test
  void scopesAWrappedTaskLeavesOpenOrClosesOnAnotherThreadDoNotLeakToThePoolThread() throws Exception {
    ExecutorService wrapped = RequestContext.wrap(pool);
    Future<?> task = RequestContext.with("req-task").call(() -> wrapped.submit(() -> {
      RequestContext.with("req-left-open").open();
      RequestContext.Scope elsewhere = RequestContext.with("req-closed-elsewhere").open();
      CompletableFuture.runAsync(elsewhere::close).join(); // ignored: not the owner thread
      assertThat(currentId()).isEqualTo("req-closed-elsewhere");
    }));
    task.get(10, TimeUnit.SECONDS);
    assertThat(seenInPoolNow()).as("the next, unwrapped task on the same thread").isEqualTo(Seen.NONE);
  }

  @Test
  void wrappingTwiceReturnsTheSameWrapper() {
    ExecutorService wrapped = RequestContext.wrap(pool);
    assertThat(RequestContext.wrap(wrapped)).isSameAs(wrapped);
    assertThat(RequestContext.wrap((java.util.concurrent.Executor) wrapped)).isSameAs(wrapped);
  }

  @Test
  @EnabledForJreRange(min = JRE.JAVA_21)
  void virtualThreadHelpersPropagateContext() throws Exception {
    CompletableFuture<Seen> started = new CompletableFuture<>();
    Thread t = RequestContext.with("req-vt").call(() -> RequestContext.startVirtualThread(() -> started.complete(Seen.now())));
    t.join(10_000);
    assertThat(started.get(10, TimeUnit.SECONDS)).isEqualTo(new Seen("req-vt", "req-vt", null));
    ExecutorService vts = RequestContext.newVirtualThreadPerTaskExecutor();
    try {
      Future<String> id = RequestContext.with("req-vte").call(() -> vts.submit(() -> currentId()));
      assertThat(id.get(10, TimeUnit.SECONDS)).isEqualTo("req-vte");
    } finally {
      vts.shutdown();
    }
  }

  @Test
  @EnabledForJreRange(max = JRE.JAVA_20)
  void virtualThreadHelpersFailClearlyBeforeJava21() {
    assertThatThrownBy(RequestContext::newVirtualThreadPerTaskExecutor)
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("Java 21+");
    assertThatThrownBy(() -> RequestContext.startVirtualThread(() -> {}))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("Java 21+");
  }

  private static String currentId() {
    return RequestContext.current().requestId();
  }

  /** What a thread observed: the current request ID and the MDC values. */
  record Seen(String requestId, String mdcRequestId, String mdcModel) {
    static final Seen NONE = new Seen(null, null, null);

    static Seen now() {
      return new Seen(RequestContext.current().requestId(), MDC.get("request_id"), MDC.get("model_name"));
    }
  }
}
