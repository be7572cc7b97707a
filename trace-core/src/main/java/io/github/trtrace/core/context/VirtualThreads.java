package io.github.trtrace.core.context;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.jspecify.annotations.Nullable;

/**
 * Virtual threads through reflection, so trace-core stays {@code --release 17} bytecode and still offers
 * them on Java 21+.
 */
final class VirtualThreads {
  private VirtualThreads() {}

  private static final class Methods {
    static final int FEATURE = Runtime.version().feature();
    static final @Nullable Method NEW_EXECUTOR = find(Executors.class, "newVirtualThreadPerTaskExecutor");
    static final @Nullable Method START = find(Thread.class, "startVirtualThread", Runnable.class);

    private static @Nullable Method find(Class<?> owner, String name, Class<?>... parameters) {
      if (FEATURE < 21) {
        return null;
      }
      try {
        return owner.getMethod(name, parameters);
      } catch (NoSuchMethodException | RuntimeException e) {
        return null;
      }
    }
  }

  static ExecutorService newThreadPerTaskExecutor() {
    return (ExecutorService) invoke(Methods.NEW_EXECUTOR, "Executors.newVirtualThreadPerTaskExecutor()");
  }

  static Thread start(Runnable task) {
    return (Thread) invoke(Methods.START, "Thread.startVirtualThread(Runnable)", task);
  }

  private static Object invoke(@Nullable Method method, String what, Object... args) {
    if (method == null) {
      throw new UnsupportedOperationException(
          what + " needs Java 21+ (virtual threads); this JVM is Java " + Methods.FEATURE);
    }
    try {
      return method.invoke(null, args);
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException) {
        throw (RuntimeException) cause;
      }
      if (cause instanceof Error) {
        throw (Error) cause;
      }
      throw new IllegalStateException(what + " failed", cause);
    } catch (IllegalAccessException e) {
      throw new UnsupportedOperationException(what + " is not accessible on this JVM", e);
    }
  }
}
