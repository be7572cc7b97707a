package io.github.trtrace.core.context;

import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;

/** Storage on any Java 17+: the {@code run}/{@code call} binding is a {@link ThreadLocal} saved and restored. */
final class ThreadLocalStorage extends LayeredStorage {
  static final String NAME = "threadlocal";

  private final ThreadLocal<@Nullable Binding> binding = new ThreadLocal<>();

  @Override
  public String name() {
    return NAME;
  }

  @Override
  @Nullable Binding binding() {
    return binding.get();
  }

  @Override
  void runBound(Binding next, Runnable task) {
    Binding previous = binding.get();
    binding.set(next);
    try {
      task.run();
    } finally {
      restore(previous);
    }
  }

  @Override
  <T> T callBound(Binding next, Callable<T> task) throws Exception {
    Binding previous = binding.get();
    binding.set(next);
    try {
      return task.call();
    } finally {
      restore(previous);
    }
  }

  private void restore(@Nullable Binding previous) {
    if (previous == null) {
      binding.remove();
    } else {
      binding.set(previous);
    }
  }
}
