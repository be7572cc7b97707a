package io.github.trtrace.core.context;

import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;

/**
 * Storage on Java 25+: the {@code run}/{@code call} binding is a {@link ScopedValue}, so structured code
 * ({@link RequestContext#run}, {@link RequestContext#call}, wrapped tasks) never writes a thread-local and
 * bindings are inherited by {@code StructuredTaskScope} forks.
 *
 * <p>Trade-off: {@link RequestContext#open()} is unstructured and a {@code ScopedValue} cannot be bound
 * without a lambda, so open scopes live in the per-thread overlay of {@link LayeredStorage} (a
 * {@link ThreadLocal} stack) and are not inherited by forks. The newer of binding and overlay is current.
 * Loaded reflectively by {@link ContextStorages}; never referenced by name from the base code.
 */
final class ScopedValueStorage extends LayeredStorage {
  private static final ScopedValue<Binding> BINDING = ScopedValue.newInstance();

  ScopedValueStorage() {}

  @Override
  public String name() {
    return ContextStorages.SCOPED_VALUE;
  }

  @Override
  @Nullable Binding binding() {
    return BINDING.isBound() ? BINDING.get() : null;
  }

  @Override
  void runBound(Binding binding, Runnable task) {
    ScopedValue.where(BINDING, binding).run(task);
  }

  @Override
  <T> T callBound(Binding binding, Callable<T> task) throws Exception {
    return ScopedValue.where(BINDING, binding).call(task::call);
  }
}
