/**
 * The asynchronous dispatcher: a bounded, non-blocking hand-off from request threads to
 * {@link io.github.trtrace.core.sink.RecordSink sinks}, with counted drops and a flush on close.
 *
 * <pre>{@code
 * try (Dispatcher d = Dispatcher.builder().sink(Slf4jSink.builder().build()).build()) {
 *   d.offer(record, record.status().isFailure());
 * }
 * }</pre>
 */
@NullMarked
package io.github.trtrace.core.dispatch;

import org.jspecify.annotations.NullMarked;
