package io.github.trtrace.core.context;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

class RequestContextScopeTest {

  @BeforeEach
  @AfterEach
  void threadStartsAndEndsClean() {
    MDC.clear();
    assertThat(RequestContext.current().isEmpty()).isTrue();
  }

  @Test
  void storageUnderTestIsTheOneTheBuildAskedFor() {
    assertThat(ContextStorages.get().name())
        .isEqualTo(System.getProperty("trtrace.test.expectedStorage", "threadlocal"));
  }

  @Test
  void currentIsEmptyContextOutsideAnyRequest() {
    RequestContext current = RequestContext.current();
    assertThat(current).isSameAs(RequestContext.empty());
    assertThat(current.requestId()).isNull();
    assertThat(current.modelName()).isNull();
    assertThat(current.attributes()).isEmpty();
    assertThat(MDC.get("request_id")).isNull();
  }

  @Test
  void openMakesContextCurrentAndCloseRestoresEmpty() {
    try (RequestContext.Scope scope = RequestContext.with("req-1").model("llama").open()) {
      assertThat(RequestContext.current().requestId()).isEqualTo("req-1");
      assertThat(RequestContext.current().modelName()).isEqualTo("llama");
      assertThat(MDC.get("request_id")).isEqualTo("req-1");
      assertThat(MDC.get("model_name")).isEqualTo("llama");
    }
    assertThat(RequestContext.current().isEmpty()).isTrue();
    assertThat(MDC.get("request_id")).isNull();
    assertThat(MDC.get("model_name")).isNull();
  }

  @Test
  void closingRestoresPreviousMdcValuesInsteadOfRemovingThem() {
    MDC.put("request_id", "set-by-host");
    MDC.put("model_name", "host-model");
    try (RequestContext.Scope outer = RequestContext.with("req-outer").open()) {
      assertThat(MDC.get("request_id")).isEqualTo("req-outer");
      assertThat(MDC.get("model_name")).as("context without model clears the key").isNull();
      RequestContext.with("req-inner").model("m").run(() -> {
        assertThat(MDC.get("request_id")).isEqualTo("req-inner");
        assertThat(MDC.get("model_name")).isEqualTo("m");
      });
      assertThat(MDC.get("request_id")).isEqualTo("req-outer");
      assertThat(MDC.get("model_name")).isNull();
    }
    assertThat(MDC.get("request_id")).isEqualTo("set-by-host");
    assertThat(MDC.get("model_name")).isEqualTo("host-model");
  }

  @Test
  void nestedOpenRunAndCallRestoreEachPreviousContext() throws Exception {
    try (RequestContext.Scope a = RequestContext.with("a").open()) {
      RequestContext.with("b").run(() -> {
        assertThat(currentId()).isEqualTo("b");
        try (RequestContext.Scope c = RequestContext.with("c").open()) {
          assertThat(currentId()).isEqualTo("c");
          String fromCall = callUnchecked("d");
          assertThat(fromCall).isEqualTo("d");
          assertThat(currentId()).isEqualTo("c");
          assertThat(MDC.get("request_id")).isEqualTo("c");
        }
        assertThat(currentId()).isEqualTo("b");
        assertThat(MDC.get("request_id")).isEqualTo("b");
      });
      assertThat(currentId()).isEqualTo("a");
      String fromCall =
          RequestContext.with("e").call(() -> {
            try (RequestContext.Scope f = RequestContext.with("f").open()) {
              return currentId();
            }
          });
      assertThat(fromCall).isEqualTo("f");
      assertThat(currentId()).isEqualTo("a");
      assertThat(MDC.get("request_id")).isEqualTo("a");
    }
    assertThat(RequestContext.current().isEmpty()).isTrue();
  }

  @Test
  void closeIsIdempotent() {
    RequestContext.Scope outer = RequestContext.with("outer").open();
    RequestContext.Scope inner = RequestContext.with("inner").open();
    inner.close();
    inner.close();
    assertThat(currentId()).as("second close must not pop the outer scope").isEqualTo("outer");
    outer.close();
    outer.close();
    assertThat(RequestContext.current().isEmpty()).isTrue();
  }

  @Test
  void closingAnOuterScopeFirstAlsoClosesInnerScopesAndRestoresStateBeforeOuter() {
    MDC.put("request_id", "host");
    try (RequestContext.Scope base = RequestContext.with("base").open()) {
      RequestContext.Scope outer = RequestContext.with("outer").open();
      RequestContext.Scope inner = RequestContext.with("inner").model("m").open();
      outer.close();
      assertThat(currentId()).isEqualTo("base");
      assertThat(MDC.get("request_id")).isEqualTo("base");
      assertThat(MDC.get("model_name")).isNull();
      inner.close();
      assertThat(currentId()).as("late close of an already closed inner scope is a no-op").isEqualTo("base");
    }
    assertThat(RequestContext.current().isEmpty()).isTrue();
    assertThat(MDC.get("request_id")).isEqualTo("host");
  }

  @Test
  void scopeLeftOpenInsideRunIsClosedWhenRunReturns() {
    RequestContext.with("outer").run(() -> {
      RequestContext.with("leaked").open();
      assertThat(currentId()).isEqualTo("leaked");
    });
    assertThat(RequestContext.current().isEmpty()).isTrue();
    assertThat(MDC.get("request_id")).isNull();
  }

  @Test
  void runInsideOpenScopeWinsOnlyWhileItRuns() {
    try (RequestContext.Scope open = RequestContext.with("open").open()) {
      RequestContext.with("run").run(() -> assertThat(currentId()).isEqualTo("run"));
      assertThat(currentId()).isEqualTo("open");
    }
  }

  @Test
  void closingAnOuterScopeInsideRunTakesEffectWhenRunReturns() {
    MDC.put("request_id", "host");
    RequestContext.Scope outer = RequestContext.with("outer").open();
    RequestContext.with("run").run(() -> {
      outer.close();
      assertThat(currentId()).isEqualTo("run");
      assertThat(MDC.get("request_id")).isEqualTo("run");
    });
    assertThat(RequestContext.current().isEmpty()).isTrue();
    assertThat(MDC.get("request_id")).isEqualTo("host");
    outer.close();
    assertThat(RequestContext.current().isEmpty()).isTrue();
  }

  @Test
  void exceptionInsideRunRestoresPreviousContextAndMdc() {
    try (RequestContext.Scope outer = RequestContext.with("outer").open()) {
      assertThatThrownBy(() -> RequestContext.with("failing").run(() -> {
            throw new IllegalStateException("boom");
          }))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("boom");
      assertThat(currentId()).isEqualTo("outer");
      assertThat(MDC.get("request_id")).isEqualTo("outer");
    }
  }

  @Test
  void checkedExceptionInsideCallPropagatesAndRestoresPreviousContext() {
    assertThatThrownBy(() -> RequestContext.with("failing").call(() -> {
          throw new java.io.IOException("io");
        }))
        .isInstanceOf(java.io.IOException.class);
    assertThat(RequestContext.current().isEmpty()).isTrue();
    assertThat(MDC.get("request_id")).isNull();
  }

  @Test
  void closingOnAnotherThreadIsIgnoredAndOwnerCanStillClose() {
    RequestContext.Scope scope = RequestContext.with("owned").open();
    CompletableFuture.runAsync(scope::close).join();
    assertThat(currentId()).isEqualTo("owned");
    scope.close();
    assertThat(RequestContext.current().isEmpty()).isTrue();
  }

  @Test
  void emptyContextRunClearsAnEnclosingContext() {
    RequestContext.with("outer").run(() -> {
      RequestContext.empty().run(() -> {
        assertThat(RequestContext.current().isEmpty()).isTrue();
        assertThat(MDC.get("request_id")).isNull();
      });
      assertThat(currentId()).isEqualTo("outer");
      assertThat(MDC.get("request_id")).isEqualTo("outer");
    });
  }

  @Test
  void copiesCarryModelAndAttributesAndStayImmutable() {
    RequestContext base = RequestContext.with("req-9").attribute("tenant", "t1").build();
    RequestContext copy = base.withModel("llama").withAttribute("region", "eu");
    assertThat(copy.requestId()).isEqualTo("req-9");
    assertThat(copy.modelName()).isEqualTo("llama");
    assertThat(copy.attributes()).containsExactly(
        java.util.Map.entry("tenant", "t1"), java.util.Map.entry("region", "eu"));
    assertThat(base.modelName()).isNull();
    assertThat(base.attributes()).containsOnlyKeys("tenant");
    assertThatThrownBy(() -> copy.attributes().put("x", "y")).isInstanceOf(UnsupportedOperationException.class);
    assertThat(copy.withAttribute("tenant", null).attributes()).containsOnlyKeys("region");
  }

  @Test
  void copyOfEmptyContextGetsAGeneratedId() {
    RequestContext copy = RequestContext.empty().withModel("llama");
    assertThat(copy.isEmpty()).isFalse();
    assertThat(copy.requestId()).startsWith(RequestIds.PREFIX_REQUEST);
    assertThat(RequestIds.isValid(copy.requestId())).isTrue();
  }

  @Test
  void invalidIdGivenToWithIsReplacedAndKeptSanitized() {
    RequestContext ctx = RequestContext.with("bad id\r\n").build();
    assertThat(ctx.requestId()).startsWith("req-");
    assertThat(ctx.attributes()).containsEntry(RequestIds.REJECTED_ATTRIBUTE, "bad_id__");
    assertThat(RequestContext.with(null).build().requestId()).startsWith("req-");
  }

  @Test
  void acceptedIdBuildsContextWithRejectedAttribute() {
    AtomicReference<RequestContext> seen = new AtomicReference<>();
    RequestIds.accept("no spaces allowed").toContext().model("m").run(() -> seen.set(RequestContext.current()));
    assertThat(seen.get().attributes()).containsEntry(RequestIds.REJECTED_ATTRIBUTE, "no_spaces_allowed");
    assertThat(seen.get().modelName()).isEqualTo("m");
  }

  private static String callUnchecked(String id) {
    try {
      return RequestContext.with(id).call(RequestContextScopeTest::currentId);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static String currentId() {
    return RequestContext.current().requestId();
  }
}
