package io.github.trtrace.core.gcfree;

import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.NOPLoggerFactory;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * The SLF4J provider of {@link GarbageFreeTest}'s JVM (chosen with {@code -Dslf4j.provider}): NOP
 * loggers and an MDC adapter that allocates nothing once a thread has used it, like Log4j2's
 * garbage-free {@code ThreadContext} map. It stores up to eight keys per thread in two fixed arrays
 * and keeps the MDC's meaning ({@code get} returns what {@code put} stored, {@code remove} removes),
 * so the test measures trtrace's own MDC handling ({@code Mdc.enter} / {@code restore}), not the
 * adapter's. Logback's adapter allocates map nodes on {@code put}: with it a request costs that on
 * top.
 */
public final class GarbageFreeMdcProvider implements SLF4JServiceProvider {
  private final ILoggerFactory loggers = new NOPLoggerFactory();
  private final IMarkerFactory markers = new BasicMarkerFactory();
  private final MDCAdapter mdc = new FixedSlotMdc();

  @Override
  public ILoggerFactory getLoggerFactory() {
    return loggers;
  }

  @Override
  public IMarkerFactory getMarkerFactory() {
    return markers;
  }

  @Override
  public MDCAdapter getMDCAdapter() {
    return mdc;
  }

  @Override
  public String getRequestedApiVersion() {
    return "2.0.99";
  }

  @Override
  public void initialize() {}

  /** Per thread: eight key slots and their values; no allocation after the first use on a thread. */
  static final class FixedSlotMdc implements MDCAdapter {
    private static final int SLOTS = 8;
    private final ThreadLocal<String[][]> slots = ThreadLocal.withInitial(() -> new String[2][SLOTS]);

    @Override
    public void put(String key, @Nullable String val) {
      String[][] s = slots.get();
      int free = -1;
      for (int i = 0; i < SLOTS; i++) {
        if (key.equals(s[0][i])) {
          s[1][i] = val;
          return;
        }
        if (free < 0 && s[0][i] == null) {
          free = i;
        }
      }
      if (free < 0) {
        throw new IllegalStateException("more than " + SLOTS + " MDC keys");
      }
      s[0][free] = key;
      s[1][free] = val;
    }

    @Override
    public @Nullable String get(String key) {
      String[][] s = slots.get();
      for (int i = 0; i < SLOTS; i++) {
        if (key.equals(s[0][i])) {
          return s[1][i];
        }
      }
      return null;
    }

    @Override
    public void remove(String key) {
      String[][] s = slots.get();
      for (int i = 0; i < SLOTS; i++) {
        if (key.equals(s[0][i])) {
          s[0][i] = null;
          s[1][i] = null;
        }
      }
    }

    @Override
    public void clear() {
      String[][] s = slots.get();
      java.util.Arrays.fill(s[0], null);
      java.util.Arrays.fill(s[1], null);
    }

    @Override
    public @Nullable Map<String, String> getCopyOfContextMap() {
      String[][] s = slots.get();
      Map<String, String> copy = new HashMap<>();
      for (int i = 0; i < SLOTS; i++) {
        if (s[0][i] != null) {
          copy.put(s[0][i], s[1][i]);
        }
      }
      return copy;
    }

    @Override
    public void setContextMap(Map<String, String> contextMap) {
      clear();
      contextMap.forEach(this::put);
    }

    @Override
    public void pushByKey(String key, String value) {
      throw new UnsupportedOperationException("not used by trtrace");
    }

    @Override
    public @Nullable String popByKey(String key) {
      throw new UnsupportedOperationException("not used by trtrace");
    }

    @Override
    public @Nullable Deque<String> getCopyOfDequeByKey(String key) {
      return null;
    }

    @Override
    public void clearDequeByKey(String key) {}
  }
}
