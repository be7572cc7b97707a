package io.github.trtrace.tensorrt.engine;

/**
 * No execution context became free within the borrow timeout.
 *
 * <pre>{@code
 * try (var lease = pool.borrow(Duration.ofMillis(50))) { ... }
 * catch (ContextPoolTimeoutException e) { reject(request, 503); }
 * }</pre>
 */
public final class ContextPoolTimeoutException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  ContextPoolTimeoutException(String message) {
    super(message);
  }
}
