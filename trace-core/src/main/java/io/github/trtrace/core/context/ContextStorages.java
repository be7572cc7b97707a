package io.github.trtrace.core.context;

import java.util.Locale;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Chooses the {@link ContextStorage} once per JVM, on first use (a lazy holder, so class loading of
 * {@link RequestContext} never depends on it).
 *
 * <p>System property {@value #PROPERTY}: {@code threadlocal} or {@code scopedvalue}. Without it, Java 25+
 * uses the {@code ScopedValue} storage when its class is present (it ships as a multi-release class under
 * {@code META-INF/versions/25}, visible only when running from the jar) and {@code threadlocal} otherwise,
 * silently. A requested storage that is unavailable, or an unknown value, logs one WARN and falls back.
 */
final class ContextStorages {
  static final String PROPERTY = "trtrace.context.storage";
  static final String SCOPED_VALUE = "scopedvalue";
  static final String SCOPED_VALUE_CLASS = "io.github.trtrace.core.context.ScopedValueStorage";

  private ContextStorages() {}

  static {
    io.github.trtrace.core.internal.context.ContextAccess.install(new ReusableContextScope.Hooks());
  }

  static ContextStorage get() {
    return Holder.STORAGE;
  }

  private static final class Holder {
    static final ContextStorage STORAGE = init();

    private static ContextStorage init() {
      Selection selection =
          select(System.getProperty(PROPERTY), Runtime.version().feature(), ContextStorages::loadScopedValue);
      String warning = selection.warning();
      if (warning != null) {
        ContextLog.LOG.warn(warning);
      }
      ContextLog.LOG.debug("request context storage: {}", selection.storage().name());
      return selection.storage();
    }
  }

  /** The chosen storage and the warning to log, if the choice was not the one asked for. */
  record Selection(ContextStorage storage, @Nullable String warning) {}

  /**
   * The selection rule, free of global state so tests call it directly.
   *
   * @param requested the system property's value, null when unset
   * @param javaFeature {@code Runtime.version().feature()}
   * @param scopedValueLoader creates the {@code ScopedValue} storage, null when its class cannot be loaded
   */
  static Selection select(
      @Nullable String requested, int javaFeature, Supplier<@Nullable ContextStorage> scopedValueLoader) {
    String choice = requested == null ? "" : requested.trim().toLowerCase(Locale.ROOT);
    if (choice.isEmpty()) {
      return new Selection(defaultStorage(javaFeature, scopedValueLoader), null);
    }
    if (choice.equals(ThreadLocalStorage.NAME)) {
      return new Selection(new ThreadLocalStorage(), null);
    }
    if (choice.equals(SCOPED_VALUE)) {
      if (javaFeature < 25) {
        return new Selection(
            new ThreadLocalStorage(),
            PROPERTY + "=" + SCOPED_VALUE + " needs Java 25+ (running on " + javaFeature
                + "): using threadlocal");
      }
      ContextStorage scoped = scopedValueLoader.get();
      if (scoped == null) {
        return new Selection(
            new ThreadLocalStorage(),
            PROPERTY + "=" + SCOPED_VALUE + " but " + SCOPED_VALUE_CLASS + " cannot be loaded (is trace-core"
                + " on the class path as its multi-release jar?): using threadlocal");
      }
      return new Selection(scoped, null);
    }
    ContextStorage fallback = defaultStorage(javaFeature, scopedValueLoader);
    return new Selection(
        fallback,
        PROPERTY + "='" + requested + "' is not one of threadlocal, scopedvalue: using " + fallback.name());
  }

  private static ContextStorage defaultStorage(
      int javaFeature, Supplier<@Nullable ContextStorage> scopedValueLoader) {
    if (javaFeature >= 25) {
      ContextStorage scoped = scopedValueLoader.get();
      if (scoped != null) {
        return scoped;
      }
    }
    return new ThreadLocalStorage();
  }

  /** Loads the Java 25 storage by name only: the base code never links against it. */
  static @Nullable ContextStorage loadScopedValue() {
    try {
      Class<?> type = Class.forName(SCOPED_VALUE_CLASS, true, ContextStorages.class.getClassLoader());
      return (ContextStorage) type.getDeclaredConstructor().newInstance();
    } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
      ContextLog.LOG.debug("ScopedValue context storage not available: {}", e.toString());
      return null;
    }
  }
}
